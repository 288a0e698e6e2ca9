// Reports from the child to the parent on the status socket.
#define _GNU_SOURCE
#include "spawn_child.h"

int child_errno;

void child_report(int fd, int kind, int step, int err, uint32_t ses) {
	struct sysgate_status st = {kind, step, err, ses};
	syscall(SYS_write, fd, &st, sizeof st);
}

// child_send_record sends st with passfd attached (SCM_RIGHTS) on fd: the
// number of bytes sent, or -errno (it leaves child_errno alone, for the
// handoff helper, which runs beside the agent).
long child_send_record(int fd, struct sysgate_status st, int passfd) {
	struct iovec iov = {&st, sizeof st};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = {0};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof ctl.buf;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	__builtin_memcpy(CMSG_DATA(c), &passfd, sizeof(int));
	return raw_syscall(SYS_sendmsg, fd, (long)&msg, 0, 0, 0, 0);
}

// child_report_fd sends a record of kind with passfd attached.
long child_report_fd(int fd, int kind, uint32_t ses, int passfd) {
	struct sysgate_status st = {kind, 0, 0, ses};
	long r = child_send_record(fd, st, passfd);
	if (r < 0) {
		child_errno = (int)-r;
		return -1;
	}
	return r;
}

// child_fail_paths is child_fail for a step on files: the n (at most 4)
// paths follow the record in the same message, each with its NUL (cut
// short past SYSGATE_STATUS_PATHS_MAX bytes), so the error names them.
__attribute__((noreturn)) void child_fail_paths(const struct sysgate_spawn *s, int step, int err, const char *const *paths, int n) {
	struct sysgate_status st = {SYSGATE_STATUS_ERROR, step, err, 0};
	struct iovec iov[1 + 4] = {{&st, sizeof st}};
	size_t room = SYSGATE_STATUS_PATHS_MAX;
	int k = 1;
	for (int i = 0; i < n && k < 5; i++, k++) {
		size_t len = cstrlen(paths[i]) + 1;
		if (len > room)
			len = room;
		iov[k].iov_base = (void *)paths[i];
		iov[k].iov_len = len;
		room -= len;
	}
	syscall(SYS_writev, s->status_fd, iov, k);
	syscall(SYS_exit_group, 127);
	__builtin_unreachable();
}

__attribute__((noreturn)) void child_fail(const struct sysgate_spawn *s, int step, int err) {
	child_report(s->status_fd, SYSGATE_STATUS_ERROR, step, err, 0);
	syscall(SYS_exit_group, 127);
	__builtin_unreachable();
}
