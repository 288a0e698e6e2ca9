// drain: the floor of the audit path. It binds the audit multicast group
// with a 64 MiB receive buffer, runs a command, and only drains the
// socket (recvmmsg batches, nothing parsed) counting type-1326 messages.
// (The command's stdout goes to /dev/null.) Once the command has exited it forks a sentinel that logs one syscall
// under a LOG filter of its own: the kernel queues that record behind
// every record the command made (one queue, one kauditd), so its arrival
// means the command's records are all in. Only records after the command's
// exit are searched for the sentinel's pid. It prints
//
//	<ns from fork to the marker> <type-1326 messages> <ENOBUFS episodes>
//
// and exits 0; 1 when the socket overran (records were lost). Root only.
//
//	drain CMD [ARGS...]
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { BATCH = 64, MSGMAX = 8970 + NLMSG_HDRLEN };

static char bufs[BATCH][MSGMAX];

static long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// sentinel forks a child that makes one logged syscall and exits; its
// pid names its record.
static pid_t sentinel(void) {
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	struct sock_filter logall[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_LOG)};
	struct sock_fprog prog = {.len = 1, .filter = logall};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		_exit(1);
	syscall(SYS_getppid);
	_exit(0);
}

int main(int argc, char **argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: drain CMD [ARGS...]\n");
		return 2;
	}
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		perror("drain: socket");
		return 2;
	}
	int rcv = 64 << 20;
	struct timeval tv = {.tv_usec = 20000};
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = AUDIT_NLGRP_READLOG};
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		perror("drain: setup");
		return 2;
	}
	struct mmsghdr hdrs[BATCH];
	struct iovec iovs[BATCH];
	for (int i = 0; i < BATCH; i++) {
		iovs[i].iov_base = bufs[i];
		iovs[i].iov_len = MSGMAX;
		memset(&hdrs[i], 0, sizeof hdrs[i]);
		hdrs[i].msg_hdr.msg_iov = &iovs[i];
		hdrs[i].msg_hdr.msg_iovlen = 1;
	}
	long long start = now_ns();
	pid_t child = fork();
	if (child < 0) {
		perror("drain: fork");
		return 2;
	}
	if (child == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 1);
		execvp(argv[1], argv + 1);
		perror("drain: exec");
		_exit(127);
	}
	long long seccomp = 0, enobufs = 0;
	int exited = 0, status = 0;
	char mark[32];
	int markLen = 0;
	for (;;) {
		if (!exited) {
			pid_t w = waitpid(child, &status, WNOHANG);
			if (w == child) {
				exited = 1;
				pid_t s = sentinel();
				if (s < 0) {
					perror("drain: fork sentinel");
					return 2;
				}
				markLen = snprintf(mark, sizeof mark, " pid=%d ", (int)s);
			}
		}
		int n = recvmmsg(fd, hdrs, BATCH, MSG_WAITFORONE, NULL);
		if (n < 0) {
			if (errno == ENOBUFS) {
				enobufs++;
				continue;
			}
			if (errno == EAGAIN || errno == EINTR)
				continue;
			perror("drain: recvmmsg");
			return 2;
		}
		for (int i = 0; i < n; i++) {
			struct nlmsghdr *h = (struct nlmsghdr *)bufs[i];
			if (h->nlmsg_type == AUDIT_SECCOMP)
				seccomp++;
			if (exited && h->nlmsg_type == AUDIT_SECCOMP && memmem(bufs[i], hdrs[i].msg_len, mark, markLen)) {
				seccomp--; // the sentinel's own
				long long end = now_ns();
				printf("%lld %lld %lld\n", end - start, seccomp, enobufs);
				if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
					fprintf(stderr, "drain: %s failed (status %d)\n", argv[1], status);
					return 2;
				}
				return enobufs ? 1 : 0;
			}
		}
	}
}
