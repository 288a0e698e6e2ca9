// A test agent with one misbehaviour per mode, built by the harness tests
// with the host's gcc. Exit 0 means the misbehaviour ran as expected.
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct sock_filter allow_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
static struct sock_fprog allow_prog = {1, allow_all};
static struct sock_filter log_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_LOG)};
static struct sock_fprog log_prog = {1, log_all};

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	const char *mode = argv[1];
#if defined(__x86_64__)
	if (!strcmp(mode, "int80")) {
		// i386 getpid (20) through the compat entry of a 64-bit process.
		long ret;
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
		return ret == getpid() ? 0 : 1;
	}
#endif
	if (!strcmp(mode, "hide")) {
		// Try to hide: own filters through seccomp(2) and prctl, and ptrace.
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &allow_prog) != 0)
			return 1;
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &allow_prog, 0, 0) != 0)
			return 1;
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		return 0;
	}
	if (!strcmp(mode, "marker")) {
		// syscall(N) COUNT times: numbers no kernel knows, to tell runs apart.
		long nr = atol(argv[2]), n = atol(argv[3]);
		for (long i = 0; i < n; i++)
			syscall(nr);
		return 0;
	}
	if (!strcmp(mode, "loginuid")) {
		// A root agent tries to leave its audit session, then marks.
		int fd = open("/proc/self/loginuid", O_WRONLY);
		if (fd < 0)
			return 3;
		int denied = write(fd, "0", 1) < 0 && errno == EPERM;
		close(fd);
		syscall(atol(argv[2]));
		return denied ? 0 : 1;
	}
	if (!strcmp(mode, "noisy")) {
		// Outside any run: log every syscall under our own filter and make
		// marker calls until killed.
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &log_prog))
			return 1;
		struct timespec ts = {0, 2000000}; // ~500 records/s: noise, not a flood
		for (;;) {
			syscall(atol(argv[2]));
			nanosleep(&ts, 0);
		}
	}
	return 2;
}
