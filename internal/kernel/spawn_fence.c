// The child's mount namespace: the kernel's knobs read-only, sysgate's
// own directories hidden, the run's files read-only.
#define _GNU_SOURCE
#include "spawn_child.h"

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define SYSGATE_MOUNT_ATTR_RDONLY 0x00000001

struct sysgate_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

// readonly makes path and every mount below it read-only in this mount
// namespace. It binds path onto itself first, so path is a mount of its
// own (the recursive attribute change then stays below path even where
// path was only a directory of a bigger mount), then sets
// MOUNT_ATTR_RDONLY on the whole subtree in one call (Linux 5.12+).
// optional: a missing path is fine (/proc/sysrq-trigger without
// CONFIG_MAGIC_SYSRQ).
static int readonly(const char *path, int optional) {
	if (syscall(SYS_mount, path, path, NULL, MS_BIND | MS_REC, NULL) != 0)
		return optional && errno == ENOENT ? 0 : -1;
	struct sysgate_mount_attr attr = {.attr_set = SYSGATE_MOUNT_ATTR_RDONLY};
	return syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof attr);
}

// bind_file shows source's content at target, read-only, in this mount
// namespace: a bind mount (mount(2) follows a symlink at target to the
// file it names) made read-only on its own (MOUNT_ATTR_RDONLY; MS_RDONLY
// is ignored by a bind). Both are opened first, so a failure says which
// one is missing; on failure (a missing target too: the run asked for
// it) it reports the step and exits.
static void bind_file(const struct sysgate_spawn *s, const char *const *pair) {
	const char *source = pair[0], *target = pair[1];
	int fd = syscall(SYS_openat, AT_FDCWD, source, O_PATH | O_CLOEXEC);
	if (fd < 0)
		child_fail_paths(s, SYSGATE_STEP_BIND_SOURCE, errno, pair, 2);
	syscall(SYS_close, fd);
	if ((fd = syscall(SYS_openat, AT_FDCWD, target, O_PATH | O_CLOEXEC)) < 0)
		child_fail_paths(s, SYSGATE_STEP_BIND_TARGET, errno, pair, 2);
	syscall(SYS_close, fd);
	if (syscall(SYS_mount, source, target, NULL, MS_BIND, NULL) != 0)
		child_fail_paths(s, SYSGATE_STEP_BIND_FILE, errno, pair, 2);
	struct sysgate_mount_attr attr = {.attr_set = SYSGATE_MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, AT_FDCWD, target, 0, &attr, sizeof attr) != 0)
		child_fail_paths(s, SYSGATE_STEP_BIND_FILE, errno, pair, 2);
}

// fence_knobs gives the child a mount namespace of its own in which the
// kernel's knobs are read-only: /proc/sys (core_pattern and modprobe are
// checked by uid, not by capability, so only a read-only mount stops a
// root agent), /proc/sysrq-trigger and /sys. / becomes a slave first, so
// nothing done here propagates back, while mounts made outside later still
// appear inside. Besides, the run's own files are bound over others,
// sysgate's own directories are hidden and the run's files read-only;
// nothing else about the file system changes. Needs CAP_SYS_ADMIN, so it
// runs before the capabilities are dropped.
void fence_knobs(const struct sysgate_spawn *s) {
	if (syscall(SYS_unshare, CLONE_NEWNS) != 0)
		child_fail(s, SYSGATE_STEP_MOUNT_NS, errno);
	if (syscall(SYS_mount, NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
		child_fail(s, SYSGATE_STEP_MOUNT_SLAVE, errno);
	// The run's own PID namespace gets a /proc of its own: the agent sees
	// its run's processes and nothing else (no /proc/<pid>/fd/0 of a
	// shell outside). First, so the read-only knobs below are this one's.
	if (s->pidns && syscall(SYS_mount, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		child_fail(s, SYSGATE_STEP_PROC, errno);
	if (readonly("/proc/sys", 0) != 0)
		child_fail(s, SYSGATE_STEP_RO_PROC_SYS, errno);
	if (readonly("/proc/sysrq-trigger", 1) != 0)
		child_fail(s, SYSGATE_STEP_RO_SYSRQ, errno);
	if (readonly("/sys", 0) != 0)
		child_fail(s, SYSGATE_STEP_RO_SYS, errno);
	// The run's own files over the host's (a resolv.conf naming the run's
	// DNS recorder), before anything is hidden: a source may lie in a
	// directory hidden below.
	for (const char *const *p = s->binds; p && *p; p += 2)
		bind_file(s, p);
	// sysgate's own state (audit tuning, claims on runs) is out of sight
	// under an empty tmpfs, and the run's files (baselines, observation)
	// cannot be written through this namespace.
	for (const char *const *p = s->hide_dirs; p && *p; p++) {
		if (syscall(SYS_mount, "sysgate", *p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			    "size=4k,mode=0555") != 0 && errno != ENOENT)
			child_fail(s, SYSGATE_STEP_HIDE_DIR, errno);
	}
	for (const char *const *p = s->ro_paths; p && *p; p++) {
		if (readonly(*p, 1) != 0)
			child_fail(s, SYSGATE_STEP_RO_PATH, errno);
	}
	// Last: what was made read-only above goes into the root with it.
	if (s->root)
		enter_root(s);
}
