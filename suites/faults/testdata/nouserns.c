// nouserns runs a command where user namespaces cannot be made, as on a
// distribution that forbids them to unprivileged users: a seccomp filter
// (no_new_privs, so no privilege needed) fails clone and unshare with
// CLONE_NEWUSER with EPERM, and clone3 with ENOSYS (its flags sit in
// memory the filter cannot read; libc then falls back to clone).
//
//   nouserns CMD [ARGS...]
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

#define NR offsetof(struct seccomp_data, nr)
#define ARG0 offsetof(struct seccomp_data, args[0])

static struct sock_filter insns[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 1, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 0, 3),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0), // the low word of the flags
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: nouserns CMD [ARGS...]\n");
		return 2;
	}
	struct sock_fprog prog = {sizeof insns / sizeof insns[0], insns};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		perror("nouserns: seccomp");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror("nouserns: exec");
	return 127;
}
