// magiclink: an agent that runs a program outside its baseline's
// programs list through a magic link, so that a path resolved from
// sysgate's side (where /proc/self is sysgate) names nothing, or the
// wrong file.
//
//   magiclink MODE DIR
//
// Every mode does the same calls up to its last exec: it copies its own
// binary to DIR/payload with mode 0111 (execute only: the new process is
// not dumpable, so /proc/<pid>/exe of it is closed to a same-uid reader),
// opens that copy O_PATH at fd 100, writes DIR/script ("#!/proc/self/fd/100")
// and runs itself once through execveat in a child. Then:
//   benign      execve of its own path (a listed program)
//   proc-self   execve("/proc/self/fd/100")
//   thread-self execve("/proc/thread-self/fd/100")
//   dev-fd      execve("/dev/fd/100")
//   empty-path  execveat(100, "", AT_EMPTY_PATH)
//   shebang     execve(DIR/script): the kernel runs the payload as its interpreter
//   symlink     execve(DIR/link), a symlink to /proc/self/fd/100
// The payload is the same binary run with fewer than two operands: it exits 0.
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FD 100

// die reports with write(2) alone (perror would dup), so a refused exec
// adds no syscall to the run.
static void die(const char *what) {
	static const char prefix[] = "magiclink: failed: ";
	if (write(2, prefix, sizeof prefix - 1) < 0 || write(2, what, strlen(what)) < 0 || write(2, "\n", 1) < 0)
		_exit(2);
	_exit(2);
}

static void copy(const char *from, const char *to) {
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		die(from);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (out < 0)
		die(to);
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, n) != n)
			die("write payload");
	if (n < 0 || fchmod(out, 0111) < 0)
		die("fchmod payload");
	close(in);
	close(out);
}

int main(int argc, char **argv) {
	if (argc < 3)
		return 0; // the payload
	const char *mode = argv[1], *dir = argv[2];
	char self[PATH_MAX], payload[PATH_MAX], script[PATH_MAX], link[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n < 0)
		die("readlink /proc/self/exe");
	self[n] = 0;
	snprintf(payload, sizeof payload, "%s/payload", dir);
	snprintf(script, sizeof script, "%s/script", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	unlink(payload);
	unlink(link);
	if (symlink("/proc/self/fd/100", link) < 0)
		die("symlink");
	copy(self, payload);
	int fd = open(payload, O_PATH | O_CLOEXEC);
	if (fd < 0 || dup2(fd, FD) < 0)
		die("open payload");
	int s = open(script, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (s < 0)
		die(script);
	const char line[] = "#!/proc/self/fd/100\n";
	if (write(s, line, sizeof line - 1) != sizeof line - 1)
		die("write script");
	close(s);
	char *args[] = {"payload", NULL}, *env[] = {NULL};
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		syscall(SYS_execveat, AT_FDCWD, self, args, env, 0);
		_exit(127);
	}
	int status;
	if (waitpid(pid, &status, 0) < 0 || status != 0)
		die("execveat child");

	if (!strcmp(mode, "benign"))
		execve(self, args, env);
	else if (!strcmp(mode, "proc-self"))
		execve("/proc/self/fd/100", args, env);
	else if (!strcmp(mode, "thread-self"))
		execve("/proc/thread-self/fd/100", args, env);
	else if (!strcmp(mode, "dev-fd"))
		execve("/dev/fd/100", args, env);
	else if (!strcmp(mode, "empty-path"))
		syscall(SYS_execveat, FD, "", args, env, AT_EMPTY_PATH);
	else if (!strcmp(mode, "shebang"))
		execve(script, args, env);
	else if (!strcmp(mode, "symlink"))
		execve(link, args, env);
	else {
		fprintf(stderr, "magiclink: unknown mode %s\n", mode);
		return 2;
	}
	die(mode);
}
