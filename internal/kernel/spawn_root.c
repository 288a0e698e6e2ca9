// The run's own root file system (AgentSetup.Root): another distribution's
// tree becomes the run's /, and the host's / is gone from its mount
// namespace.
#define _GNU_SOURCE
#include "spawn_child.h"

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define SYSGATE_ROOT_MOUNT_ATTR_RDONLY 0x00000001

struct sysgate_root_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

// mkdirs creates path and its missing parents (mode 0755), as mkdir -p;
// an existing directory is fine. No allocation: the child has no heap.
static int mkdirs(const char *path) {
	char buf[4096];
	size_t n = cstrlen(path);
	if (n == 0 || n >= sizeof buf)
		return (errno = ENAMETOOLONG), -1;
	for (size_t i = 0; i <= n; i++) {
		buf[i] = path[i];
		if ((path[i] == '/' || path[i] == 0) && i > 0) {
			buf[i] = 0;
			if (syscall(SYS_mkdirat, AT_FDCWD, buf, 0755) != 0 && errno != EEXIST)
				return -1;
			buf[i] = path[i];
		}
	}
	return 0;
}

// enter_root makes s->root the run's /, after fence_knobs' mounts (which
// it carries along): root bound onto itself, recursively (pivot_root
// needs a mount), and made read-only, since every run shares it; a fresh
// tmpfs on its /tmp; the pairs of root_binds (/proc, /dev and /sys first,
// with their read-only knobs; then the run's own directories, such as the
// workspace, a target missing under /tmp created) bound in, read-write,
// recursively; then pivot_root, and the host's / detached, so no path of
// the run leads out of root, with or without CAP_SYS_CHROOT (which the
// agent does not keep anyway).
void enter_root(const struct sysgate_spawn *s) {
	if (syscall(SYS_mount, s->root, s->root, NULL, MS_BIND | MS_REC, NULL) != 0)
		child_fail(s, SYSGATE_STEP_ROOT, errno);
	struct sysgate_root_attr attr = {.attr_set = SYSGATE_ROOT_MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, AT_FDCWD, s->root, AT_RECURSIVE, &attr, sizeof attr) != 0)
		child_fail(s, SYSGATE_STEP_ROOT, errno);
	if (syscall(SYS_mount, "tmpfs", s->root_tmp, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
		child_fail(s, SYSGATE_STEP_ROOT, errno);
	for (const char *const *p = s->root_binds; p && *p; p += 2) {
		if (mkdirs(p[1]) != 0 || syscall(SYS_mount, p[0], p[1], NULL, MS_BIND | MS_REC, NULL) != 0)
			child_fail_paths(s, SYSGATE_STEP_ROOT_BIND, errno, p, 2);
	}
	// pivot_root(".", "."): the old root is stacked on the new one at
	// "/", and unmounting "." detaches it (pivot_root(2), NOTES).
	if (syscall(SYS_chdir, s->root) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
	    syscall(SYS_umount2, ".", MNT_DETACH) != 0 || syscall(SYS_chdir, "/") != 0)
		child_fail(s, SYSGATE_STEP_PIVOT_ROOT, errno);
}
