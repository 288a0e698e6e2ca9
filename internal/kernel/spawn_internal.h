// Shared by the launcher's C files (spawn*.c), not by Go: the state the
// parent hands the child it clones, and the child-side entry points the
// parent clones into. spawn.h is the Go-facing interface.
#ifndef SYSGATE_SPAWN_INTERNAL_H
#define SYSGATE_SPAWN_INTERNAL_H

#include "spawn.h"

#include <signal.h>
#include <stdint.h>

// The kernel's sigset is 8 bytes; glibc's sigset_t is larger.
#define KERNEL_SIGSET_SIZE 8
#define CHILD_STACK_SIZE (256 * 1024)
#define HELPER_STACK_SIZE (64 * 1024)

struct handoff {
	int state; // HANDOFF_*, read and written with __atomic builtins
	int lfd;
	int err;
	int agent_pid;  // the agent's first process, for the helper's pidfd
	int helper_pid; // > 0 once the helper runs: its parent reaps it
	char *stack;    // the helper's, mapped by sysgate_spawn_run
};

struct child_arg {
	const struct sysgate_spawn *s;
	sigset_t oldmask;
	volatile int agent_failed; // with pidns: set by the agent before it exits on a failure
	// A step that failed once the filter was loaded: the agent cannot
	// report it (its calls wait for the listener, or fail once it is
	// gone), so whoever waits for it (init, or sysgate_spawn_run) does.
	volatile int late_step, late_err;
	struct handoff handoff;
};

struct probe_ids {
	uint32_t uid, gid;
};

// Child-side entry points (clone targets), in spawn_agent.c and spawn_init.c.
int child_main(void *p);  // the agent without a PID namespace: set-up, own steps, exec
int agent_main(void *p);  // the agent under init: its own steps, then exec
int init_main(void *p);   // pid 1 of the run's PID namespace (or the run's subreaper)
int probe_userns_main(void *p); // sysgate_probe_userns's child

#endif
