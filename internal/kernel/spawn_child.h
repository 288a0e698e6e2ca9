// The child side of the launcher (spawn_report.c, spawn_fence.c,
// spawn_session.c, spawn_agent.c, spawn_init.c) may run beside the Go
// runtime in the same memory: the init of a run's PID namespace is a
// CLONE_VM child without CLONE_VFORK. It must not write glibc's errno,
// which is thread-local storage of the thread that cloned it. So its
// syscalls are raw (syscall and errno below are macros), and errno there
// is child_errno, written only when a child-side call fails (two launches
// failing at the same instant could swap their errno values; nothing else
// shares it).
//
// Everything in the child is a raw syscall: it shares the parent's memory
// (CLONE_VM|CLONE_VFORK, on a stack of its own), so no malloc, no locks,
// no glibc wrapper with process-wide effects (setuid's thread broadcast).
#ifndef SYSGATE_SPAWN_CHILD_H
#define SYSGATE_SPAWN_CHILD_H

#include "spawn_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// landlock_restrict_self: 446 on every arch (the generic syscall table);
// older headers lack the name.
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif

#if defined(__x86_64__)
static inline long raw_syscall(long n, long a, long b, long c, long d, long e, long f) {
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline long raw_syscall(long n, long a, long b, long c, long d, long e, long f) {
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
}
#else
#error "spawn_child.h: raw syscalls are written for x86_64 and aarch64"
#endif

// The one errno of the child side (spawn_report.c defines it).
extern int child_errno;

static inline long child_syscall(long n, long a, long b, long c, long d, long e, long f) {
	long r = raw_syscall(n, a, b, c, d, e, f);
	if (r < 0 && r > -4096) {
		child_errno = (int)-r;
		return -1;
	}
	return r;
}

#define CHILD_SYSCALL(n, a, b, c, d, e, f, ...) \
	child_syscall((long)(n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define syscall(...) CHILD_SYSCALL(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)
#undef errno
#define errno child_errno

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef __WALL
#define __WALL 0x40000000
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#define SYSGATE_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

// cstrlen is strlen, without glibc.
static inline size_t cstrlen(const char *p) {
	size_t n = 0;
	while (p[n])
		n++;
	return n;
}

// Reports to the parent on the status socket (spawn_report.c).
void child_report(int fd, int kind, int step, int err, uint32_t ses);
__attribute__((noreturn)) void child_fail_paths(const struct sysgate_spawn *s, int step, int err, const char *const *paths, int n);
long child_send_record(int fd, struct sysgate_status st, int passfd);
long child_report_fd(int fd, int kind, uint32_t ses, int passfd);
__attribute__((noreturn)) void child_fail(const struct sysgate_spawn *s, int step, int err);

void fence_knobs(const struct sysgate_spawn *s);    // spawn_fence.c
void enter_root(const struct sysgate_spawn *s);     // spawn_root.c
void session_setup(const struct sysgate_spawn *s);  // spawn_session.c
void reap_helper(struct child_arg *a);              // spawn_agent.c
int map_self(uint32_t uid, uint32_t gid);           // spawn_init.c

#endif
