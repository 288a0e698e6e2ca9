#define _GNU_SOURCE
#include "spawn_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// The parent side: glibc as usual. The child side it clones into is in
// spawn_session.c, spawn_agent.c and spawn_init.c (see spawn_child.h).
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef __WALL
#define __WALL 0x40000000
#endif

// init_resources is what a running init uses of this process's memory: it
// shares it (CLONE_VM), so they stay until init is reaped.
struct init_resources {
	char *stack;
	struct child_arg a;
};

// helper_stack maps the handoff helper's stack for a notify launch.
static int helper_stack(const struct sysgate_spawn *s, struct child_arg *a) {
	if (!s->notify)
		return 0;
	a->handoff.stack = mmap(NULL, HELPER_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (a->handoff.stack == MAP_FAILED) {
		a->handoff.stack = NULL;
		return -errno;
	}
	return 0;
}

static void free_helper_stack(struct child_arg *a) {
	if (a->handoff.stack)
		munmap(a->handoff.stack, HELPER_STACK_SIZE);
}

int sysgate_spawn_run(const struct sysgate_spawn *s, int *pidfd, void **resources) {
	*resources = NULL;
	char *stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	sigset_t all;
	sigfillset(&all);
	int pid, err;
	if (s->pidns || s->subreaper) {
		// init shares this memory (no page tables to copy, nothing
		// copied on write while the run goes on) and runs beside the Go
		// runtime: on a stack of its own, with every signal blocked,
		// reading only s and its own arguments, which outlive it.
		struct init_resources *r = calloc(1, sizeof *r);
		if (!r) {
			munmap(stack, CHILD_STACK_SIZE);
			return -ENOMEM;
		}
		r->stack = stack;
		r->a.s = s;
		if ((err = helper_stack(s, &r->a)) < 0) {
			munmap(stack, CHILD_STACK_SIZE);
			free(r);
			return err;
		}
		pthread_sigmask(SIG_SETMASK, &all, &r->a.oldmask);
		// In a user namespace of its own, init has memory of its own too
		// (see map_self): then it and the agent share that copy.
		int flags = s->userns ? CLONE_NEWUSER : CLONE_VM;
		pid = clone(init_main, stack + CHILD_STACK_SIZE, flags | (s->pidns ? CLONE_NEWPID : 0) | CLONE_PIDFD | SIGCHLD, &r->a, pidfd);
		err = errno;
		pthread_sigmask(SIG_SETMASK, &r->a.oldmask, NULL);
		if (pid < 0) {
			munmap(stack, CHILD_STACK_SIZE);
			free_helper_stack(&r->a);
			free(r);
			return -err;
		}
		*resources = r;
		return pid;
	}
	struct child_arg a = {.s = s};
	if ((err = helper_stack(s, &a)) < 0) {
		munmap(stack, CHILD_STACK_SIZE);
		return err;
	}
	pthread_sigmask(SIG_SETMASK, &all, &a.oldmask);
	// CLONE_VFORK: this thread sleeps until the child execs or exits; the
	// rest of the Go runtime keeps running and answers the child.
	pid = clone(child_main, stack + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &a, pidfd);
	err = errno;
	pthread_sigmask(SIG_SETMASK, &a.oldmask, NULL);
	munmap(stack, CHILD_STACK_SIZE);
	if (pid >= 0) {
		// The handoff helper (our child: CLONE_PARENT) is done by now, and
		// a step that failed under the filter is ours to report.
		if (a.handoff.helper_pid > 0)
			while (waitpid(a.handoff.helper_pid, NULL, __WALL) < 0 && errno == EINTR)
				;
		if (a.late_step) {
			struct sysgate_status st = {SYSGATE_STATUS_ERROR, a.late_step, a.late_err, 0};
			if (write(s->status_fd, &st, sizeof st) < 0) {
				// The reader is gone: nobody is left to tell.
			}
		}
	}
	free_helper_stack(&a);
	return pid < 0 ? -err : pid;
}

void sysgate_spawn_free(void *resources) {
	struct init_resources *r = resources;
	if (!r)
		return;
	munmap(r->stack, CHILD_STACK_SIZE);
	free_helper_stack(&r->a);
	free(r);
}

static int probe_exit(void *p) {
	(void)p;
	syscall(SYS_exit_group, 0);
	return 0;
}

int sysgate_probe_pidns(void) {
	char *stack = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	int pid = clone(probe_exit, stack + 64 * 1024, CLONE_VM | CLONE_VFORK | CLONE_NEWPID | SIGCHLD, NULL);
	int err = errno;
	if (pid > 0)
		waitpid(pid, NULL, __WALL);
	munmap(stack, 64 * 1024);
	return pid < 0 ? -err : 0;
}


int sysgate_probe_userns(uint32_t uid, uint32_t gid) {
	char *stack = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	struct probe_ids ids = {uid, gid};
	int pid = clone(probe_userns_main, stack + 64 * 1024, CLONE_NEWUSER | CLONE_NEWPID | SIGCHLD, &ids);
	int err = errno, status = 0;
	if (pid > 0)
		while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
			;
	munmap(stack, 64 * 1024);
	if (pid < 0)
		return -err;
	if (!WIFEXITED(status))
		return -EINVAL;
	return -WEXITSTATUS(status);
}
