//go:build linux && cgo

package kernel

/*
#cgo CFLAGS: -Wall -Wextra -Werror
#include <stdlib.h>
#include "spawn.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Go side's copies of spawn.h's numbers (spawn_status.go, which
// builds without cgo) must agree with it: an index other than 0 fails
// the build.
func _() {
	var agree [1]struct{}
	_ = agree[StatusSession-C.SYSGATE_STATUS_SES]
	_ = agree[StatusError-C.SYSGATE_STATUS_ERROR]
	_ = agree[StatusAgent-C.SYSGATE_STATUS_AGENT]
	_ = agree[StatusExit-C.SYSGATE_STATUS_EXIT]
	_ = agree[StatusListener-C.SYSGATE_STATUS_LISTENER]
	_ = agree[statusPathsMax-C.SYSGATE_STATUS_PATHS_MAX]
}

var spawnSteps = map[int32]string{
	C.SYSGATE_STEP_STDIO: "set up stdio", C.SYSGATE_STEP_LOGINUID: "set loginuid",
	C.SYSGATE_STEP_SESSION: "read session id", C.SYSGATE_STEP_LISTENER: "install the run's listener filter", C.SYSGATE_STEP_GO_AHEAD: "wait for go-ahead",
	C.SYSGATE_STEP_CAPS: "drop capabilities", C.SYSGATE_STEP_USER: "switch user",
	C.SYSGATE_STEP_CHDIR: "chdir", C.SYSGATE_STEP_NO_NEW_PRIVS: "set no_new_privs",
	C.SYSGATE_STEP_FIND: StepFindAgent, C.SYSGATE_STEP_SECCOMP: "seccomp(SECCOMP_SET_MODE_FILTER)",
	C.SYSGATE_STEP_EXEC:     "execve",
	C.SYSGATE_STEP_MOUNT_NS: "unshare(CLONE_NEWNS)", C.SYSGATE_STEP_MOUNT_SLAVE: "make / rslave",
	C.SYSGATE_STEP_RO_PROC_SYS: "make /proc/sys read-only", C.SYSGATE_STEP_RO_SYSRQ: "make /proc/sysrq-trigger read-only",
	C.SYSGATE_STEP_RO_SYS: "make /sys read-only", C.SYSGATE_STEP_KEEP_FDS: "dup3 a kept descriptor",
	C.SYSGATE_STEP_CLOSE_FDS: "close_range(CLOSE_RANGE_CLOEXEC)", C.SYSGATE_STEP_SETSID: "setsid", C.SYSGATE_STEP_CTTY: "ioctl(TIOCSCTTY)",
	C.SYSGATE_STEP_HIDE_DIR: "tmpfs over sysgate's state directory", C.SYSGATE_STEP_RO_PATH: "bind a file of the run read-only",
	C.SYSGATE_STEP_PROC: "mount the PID namespace's /proc", C.SYSGATE_STEP_AGENT: "start the agent under init",
	C.SYSGATE_STEP_USERNS:   "map the caller's uid and gid in the run's user namespace",
	C.SYSGATE_STEP_LANDLOCK: "landlock_restrict_self", C.SYSGATE_STEP_LANDLOCK_PROC: "add the Landlock rules beneath the run's /proc",

	// BindFiles: the steps of a BindFileError.
	C.SYSGATE_STEP_BIND_SOURCE: "open the source", C.SYSGATE_STEP_BIND_TARGET: "open the target",
	C.SYSGATE_STEP_BIND_FILE: "bind read-only",

	C.SYSGATE_STEP_ROOT: "bind the run's root read-only with a fresh /tmp", C.SYSGATE_STEP_ROOT_BIND: "bind a directory into the run's root",
	C.SYSGATE_STEP_PIVOT_ROOT: "pivot_root into the run's root",
}

// Err turns an error record into an error naming the step (and, for
// BindFiles, a BindFileError naming the files).
func (s SpawnStatus) Err() error {
	switch s.Step {
	case C.SYSGATE_STEP_BIND_SOURCE, C.SYSGATE_STEP_BIND_TARGET, C.SYSGATE_STEP_BIND_FILE:
		e := &BindFileError{Step: spawnSteps[s.Step], Err: syscall.Errno(s.Errno)}
		if len(s.Paths) == 2 {
			e.Source, e.Target = s.Paths[0], s.Paths[1]
		}
		return e
	case C.SYSGATE_STEP_ROOT_BIND:
		if len(s.Paths) == 2 {
			return fmt.Errorf("bind %s into the run's root at %s: %w", s.Paths[0], s.Paths[1], syscall.Errno(s.Errno))
		}
	}
	return os.NewSyscallError(spawnSteps[s.Step], syscall.Errno(s.Errno))
}

// Spawn starts the child with clone(CLONE_VM|CLONE_VFORK) on a stack of
// its own: the child sets up its stdio and kept descriptors, marks every
// other descriptor above 2 close-on-exec, starts a session of its own
// when asked (setsid), writes cfg.LoginUID to its loginuid, reports its
// session id on cfg.Status, waits for the go-ahead on cfg.Control, enters
// a mount namespace of its own in which /proc/sys, /proc/sysrq-trigger and
// /sys are read-only and cfg.BindFiles are bound (refused with NoFence), drops cfg.DropCaps, switches user, chdirs, sets
// no_new_privs, finds the executable, and loads the filter as its last
// step before execve. Only raw syscalls run in the child; it never runs Go
// code.
//
// Spawn blocks its OS thread until the child exec'd or exited, so the
// caller runs it on a goroutine of its own and answers the child from
// another. It holds syscall.ForkLock meanwhile.
//
// With PidNamespace the child is instead the init of a new PID namespace
// (clone(CLONE_VM|CLONE_NEWPID) without CLONE_VFORK, so Spawn returns at
// once; free must be called once init has been reaped, not before):
// init does the steps up to the mount namespace, in which it mounts the
// namespace's own /proc, then starts the agent as its child with the
// remaining steps, reports it (StatusAgent, the agent's pidfd attached),
// keeps only the status socket open, reports the agent's wait status once
// it reaps it (StatusExit), and reaps until the namespace is empty.
func Spawn(cfg *SpawnConfig) (pid, pidfd int, free func(), err error) {
	if len(cfg.Program) == 0 || len(cfg.Args) == 0 {
		return -1, -1, nil, os.NewSyscallError("spawn", unix.EINVAL)
	}
	if err := checkRoot(&cfg.AgentSetup); err != nil {
		return -1, -1, nil, err
	}
	if err := checkBindFiles(&cfg.AgentSetup); err != nil {
		return -1, -1, nil, err
	}
	var mem cMemory
	kept := false
	defer func() {
		if !kept {
			mem.free()
		}
	}()
	s := (*C.struct_sysgate_spawn)(mem.alloc(C.sizeof_struct_sysgate_spawn))
	fillSpawn(s, &mem, cfg)
	control, status, peer, moved, err := keepAboveKept(s, &mem, cfg)
	// The moved copies are the child's; ours go once it has exec'd or,
	// with init, has them in its own descriptor table.
	defer func() {
		for _, fd := range moved {
			unix.Close(fd)
		}
	}()
	if err != nil {
		return -1, -1, nil, err
	}
	s.control_fd, s.status_fd = C.int(control), C.int(status)
	s.control_peer_fd = C.int(peer)

	var cpidfd C.int = -1
	var resources unsafe.Pointer
	syscall.ForkLock.Lock()
	ret := C.sysgate_spawn_run(s, &cpidfd, &resources)
	syscall.ForkLock.Unlock()
	if ret < 0 {
		return -1, -1, nil, os.NewSyscallError("clone", syscall.Errno(-ret))
	}
	unix.CloseOnExec(int(cpidfd))
	free = func() {}
	if resources != nil {
		// init shares this memory: what it reads stays until it is reaped.
		kept = true
		free = func() {
			C.sysgate_spawn_free(resources)
			mem.free()
		}
	}
	return int(ret), int(cpidfd), free, nil
}

// fillSpawn copies cfg into s, in C memory the child reads: everything
// but the descriptors that keepAboveKept may move.
func fillSpawn(s *C.struct_sysgate_spawn, mem *cMemory, cfg *SpawnConfig) {
	// The candidates are tried in the child, after its chdir and user
	// switch, with access(X_OK): the agent's own view.
	s.paths = (**C.char)(mem.strings(CandidatePaths(cfg.Path, cfg.Env)))
	s.argv = (**C.char)(mem.strings(cfg.Args))
	s.envp = (**C.char)(mem.strings(cfg.Env))
	if len(cfg.HideDirs) > 0 {
		s.hide_dirs = (**C.char)(mem.strings(cfg.HideDirs))
	}
	if len(cfg.ReadOnlyPaths) > 0 {
		s.ro_paths = (**C.char)(mem.strings(cfg.ReadOnlyPaths))
	}
	if len(cfg.BindFiles) > 0 {
		pairs := make([]string, 0, 2*len(cfg.BindFiles))
		for _, b := range cfg.BindFiles {
			pairs = append(pairs, b.Source, inRoot(cfg.Root, b.Target))
		}
		s.binds = (**C.char)(mem.strings(pairs))
	}
	if cfg.Root != "" {
		s.root = mem.cstring(cfg.Root)
		s.root_tmp = mem.cstring(inRoot(cfg.Root, "/tmp"))
		s.root_binds = (**C.char)(mem.strings(rootBindPairs(cfg.Root, cfg.RootBinds)))
	}
	if cfg.Dir != "" {
		s.dir = mem.cstring(cfg.Dir)
	}
	s.loginuid = mem.cstring(strconv.FormatUint(uint64(cfg.LoginUID), 10))
	if cfg.SetUser {
		s.set_user = 1
		s.uid, s.gid = C.uint32_t(cfg.UID), C.uint32_t(cfg.GID)
		if len(cfg.Groups) > 0 {
			g := mem.alloc(uintptr(len(cfg.Groups)) * 4)
			copy(unsafe.Slice((*uint32)(g), len(cfg.Groups)), cfg.Groups)
			s.groups, s.ngroups = (*C.uint32_t)(g), C.int(len(cfg.Groups))
		}
	}
	s.seccomp_flags = C.uint(cfg.SeccompFlags)
	if len(cfg.Listener) > 0 {
		s.listener_prog = unsafe.Pointer(mem.fprog(cfg.Listener))
	}
	for i, fd := range cfg.Stdio {
		s.stdio[i] = C.int(fd)
	}
	s.new_session = cBool(cfg.NewSession)
	s.set_ctty = cBool(cfg.Ctty)
	s.cloexec_loop = cBool(cfg.cloexecLoop)
	if cfg.PidNamespace {
		s.pidns = 1
		if cfg.UserNamespace {
			s.userns = 1
			s.map_uid, s.map_gid = C.uint32_t(cfg.MapUID), C.uint32_t(cfg.MapGID)
		}
	} else if cfg.Subreaper {
		s.subreaper = 1
	}
	s.audit_session = cBool(!cfg.NoAuditSession)
	s.fence = cBool(!cfg.NoFence)
	s.notify = cBool(cfg.Notify)
	s.prog = unsafe.Pointer(mem.fprog(cfg.Program))
	s.cap_drop = C.uint64_t(cfg.DropCaps)
	s.landlock_fd = -1
	if cfg.Landlock != nil {
		s.landlock_fd, s.landlock_flags = C.int(cfg.Landlock.FD), C.uint32_t(cfg.Landlock.Flags)
		if n := len(cfg.Landlock.Proc); n > 0 {
			paths := make([]string, n)
			access := unsafe.Slice((*C.uint64_t)(mem.alloc(uintptr(n)*8)), n)
			for i, r := range cfg.Landlock.Proc {
				paths[i], access[i] = r.Path, C.uint64_t(r.Access)
			}
			s.landlock_proc = (**C.char)(mem.strings(paths))
			s.landlock_proc_access = &access[0]
		}
	}
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// keepAboveKept fills s.keep_fds from cfg.KeepFds and returns the control,
// status and control-peer descriptors the child gets. The child dup3s the
// kept descriptors onto 3..3+n-1: nothing it still needs may sit there (or
// on 0-2, which stdio takes first), so any that do are duplicated above;
// moved lists those copies, for the caller to close after the spawn, also
// when err is set.
func keepAboveKept(s *C.struct_sysgate_spawn, mem *cMemory, cfg *SpawnConfig) (control, status, peer int, moved []int, err error) {
	control, status, peer = cfg.Control, cfg.Status, cfg.ControlPeer
	n := len(cfg.KeepFds)
	if n == 0 {
		return control, status, peer, nil, nil
	}
	above := func(fd int) (int, error) {
		if fd >= 3+n {
			return fd, nil
		}
		nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3+n)
		if err != nil {
			return -1, os.NewSyscallError("fcntl(F_DUPFD_CLOEXEC)", err)
		}
		moved = append(moved, nfd)
		return nfd, nil
	}
	keep := (*C.int)(mem.alloc(uintptr(n) * C.sizeof_int))
	keepFds := unsafe.Slice(keep, n)
	for i, fd := range cfg.KeepFds {
		keepFds[i] = -1
		if fd < 0 {
			continue
		}
		src, err := above(fd)
		if err != nil {
			return -1, -1, -1, moved, err
		}
		keepFds[i] = C.int(src)
	}
	if control, err = above(control); err != nil {
		return -1, -1, -1, moved, err
	}
	if status, err = above(status); err != nil {
		return -1, -1, -1, moved, err
	}
	if peer > 2 {
		if peer, err = above(peer); err != nil {
			return -1, -1, -1, moved, err
		}
	}
	if s.landlock_fd >= 0 {
		fd, err := above(int(s.landlock_fd))
		if err != nil {
			return -1, -1, -1, moved, err
		}
		s.landlock_fd = C.int(fd)
	}
	s.keep_fds, s.nkeep = keep, C.int(n)
	return control, status, peer, moved, nil
}
