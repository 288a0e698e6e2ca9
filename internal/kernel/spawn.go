package kernel

/*
#cgo CFLAGS: -Wall -Wextra -Werror
#include <stdlib.h>
#include "spawn.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// AgentSetup is what the agent's first process sets up before it execs
// the agent, whichever launcher runs it.
type AgentSetup struct {
	Path     string // as given; resolved against the agent's $PATH after chdir and user switch
	Args     []string
	Env      []string
	Dir      string
	LoginUID uint32 // written to loginuid: a fresh audit session
	SetUser  bool
	UID, GID uint32
	Groups   []uint32
	Program  []unix.SockFilter
	// Listener is the run filter, installed with a listener right after
	// the session is set up; the session record then carries the listener
	// fd (see ReadSpawnStatus). Every process of the run holds that
	// filter: the listener hangs up once the last one has exited.
	Listener []unix.SockFilter
	// SeccompFlags are SECCOMP_FILTER_FLAG_* for seccomp(2).
	SeccompFlags uint
	// DropCaps (bit n: capability n) are removed from all five capability
	// sets of the child before it switches user. Bits above the kernel's
	// last capability (LastCapability) make the step fail.
	DropCaps uint64
	// KeepFds[i] (a descriptor of the caller, or -1 for none) becomes the
	// agent's fd 3+i, as exec.Cmd's ExtraFiles do. Every other descriptor
	// above 2 is closed on exec, inheritable or not.
	KeepFds []int
	// NewSession puts the agent in a session of its own (setsid), without
	// a controlling terminal.
	NewSession bool
	// Ctty, with NewSession, makes the agent's fd 0 (the terminal end of a
	// pseudo-terminal) its controlling terminal.
	Ctty bool
	// PidNamespace starts the run in a PID namespace of its own with a
	// minimal init as its pid 1 and a /proc of its own (see Spawn).
	PidNamespace bool
	// UserNamespace, with PidNamespace, puts the run's init in a user
	// namespace of its own that maps MapUID and MapGID (the caller's own
	// ids) to themselves: an unprivileged caller gets the PID namespace,
	// the mount namespace and its own /proc that way (see
	// ProbeUserNamespace). Nothing else changes for the agent: the same
	// uid and gid, no capability over anything outside the namespace.
	UserNamespace  bool
	MapUID, MapGID uint32
	// Landlock, when set, is a ruleset the agent restricts itself to
	// right after no_new_privs (enforce with a files section). FD must
	// stay open until Spawn returns; it may be close-on-exec.
	Landlock *LandlockSetup
	// Subreaper, without PidNamespace, starts the run with the same init,
	// in sysgate's PID namespace, as the run's child subreaper: every
	// process of the run stays init's descendant (see Descendants).
	Subreaper bool
	// NoAuditSession skips the loginuid write (which needs
	// CAP_AUDIT_CONTROL): the run keeps the caller's audit session, and
	// the session record says 0.
	NoAuditSession bool
	// NoFence skips the mount namespace with its read-only knobs, hidden
	// directories and read-only paths (which need CAP_SYS_ADMIN).
	NoFence bool
	// Notify loads Program with a listener (the notify backend) instead
	// of Listener's run filter: a helper task that shares the agent's
	// first process's memory and descriptors, but not its filter, sends
	// it as a StatusListener record before the execve. The filter itself
	// lets nothing through unheard.
	Notify bool
	// HideDirs are covered by an empty read-only tmpfs in the agent's mount
	// namespace; ReadOnlyPaths are bound read-only there. Missing ones are
	// skipped. Absolute paths.
	HideDirs, ReadOnlyPaths []string
	// BindFiles are files bound read-only over others in the agent's mount
	// namespace: Target (absolute; a symlink is followed, as mount(2)
	// does) shows Source's content, and no process of the run can write
	// it there; the file outside stays as it is. They are bound before
	// HideDirs are covered, so a Source may lie in one. A missing Source
	// or Target fails the launch (a BindFileError). They need the mount
	// namespace: with NoFence, Spawn refuses them.
	BindFiles []BindFile
	// Root, when set, is the run's / (another distribution's tree, say):
	// after the mounts above, the child binds it onto itself read-only
	// (every run shares it), puts a fresh tmpfs on its /tmp, binds /proc,
	// /dev and /sys (with their read-only knobs) and then RootBinds into
	// it, and pivots into it, detaching the host's /. BindFiles' targets
	// are taken inside Root. Dir, Path and the agent's $PATH are the
	// agent's view, inside Root. Needs the mount namespace (not NoFence)
	// and PidNamespace (a /proc of the host's processes would lead out
	// through /proc/<pid>/root).
	Root string
	// RootBinds are directories of the host bound read-write into Root:
	// Target is the path inside Root (a missing one is created where Root
	// is writable, that is under /tmp).
	RootBinds []BindFile
}

// CandidatePaths lists where an exec of file looks, like execvp: file
// itself when it has a slash, else each entry of $PATH in env.
func CandidatePaths(file string, env []string) []string {
	if strings.Contains(file, "/") {
		return []string{file}
	}
	pathEnv := DefaultPath
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	var out []string
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		out = append(out, filepath.Join(dir, file))
	}
	return out
}

// DefaultPath is execvp's search path when the agent's env has no PATH.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// SpawnConfig describes an agent for Spawn.
type SpawnConfig struct {
	AgentSetup
	// Stdio become the child's fds 0, 1 and 2.
	Stdio [3]int
	// Control: the child reads one 'g' here before it drops privileges.
	// Status: the child writes SpawnStatus records here; mark it
	// close-on-exec, so EOF after the session record means exec worked.
	Control, Status int
	// ControlPeer is the parent's write end of Control: the child closes
	// its copy first, so it sees EOF (and exits) if the parent dies
	// before the go-ahead. 0 (or any fd <= 2): none.
	ControlPeer int

	// cloexecLoop makes the child skip close_range and run its fallback,
	// for tests on kernels that have close_range.
	cloexecLoop bool
}

// SpawnStatus is one record the child writes on the status fd.
type SpawnStatus struct {
	Kind  int32 // StatusSession, StatusError, StatusAgent or StatusExit
	Step  int32 // which step failed
	Errno int32 // StatusExit: the agent's wait status
	Ses   uint32
	// Paths are the files the failed step worked on, for a step that
	// names them (BindFiles: source and target).
	Paths []string
}

// statusRecord is a status record as the child writes it; an error
// record's paths follow it in the same message.
type statusRecord struct {
	Kind, Step, Errno int32
	Ses               uint32
}

// Status kinds.
const (
	StatusSession = C.SYSGATE_STATUS_SES
	StatusError   = C.SYSGATE_STATUS_ERROR
	StatusAgent   = C.SYSGATE_STATUS_AGENT // with PidNamespace: the agent exec'd; its pidfd attached
	StatusExit    = C.SYSGATE_STATUS_EXIT  // with PidNamespace: the agent was reaped; Err holds its wait status
	// StatusListener (Notify): the agent's filter is loaded; its listener
	// is attached.
	StatusListener = C.SYSGATE_STATUS_LISTENER
)

// StepFindAgent names the step that looks for the agent's command in its
// $PATH: an *os.SyscallError of that name, ENOENT, is a command that does
// not exist (a misspelt name), which the CLI reports as bad input.
const StepFindAgent = "find agent"

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

// ReadSpawnStatus reads one record from the status socket; io.EOF when
// the child exec'd (or died) without another report. A session record of
// a child spawned with a listener carries the listener fd (close-on-exec),
// which the caller then owns; -1 otherwise.
func ReadSpawnStatus(status int) (st SpawnStatus, listenerFd int, err error) {
	var rec statusRecord
	size := binary.Size(rec)
	buf := make([]byte, size+C.SYSGATE_STATUS_PATHS_MAX)
	oob := make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	for {
		n, oobn, _, _, err = unix.Recvmsg(status, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return st, -1, os.NewSyscallError("recvmsg", err)
	}
	listenerFd = -1
	if oobn > 0 {
		msgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
		for _, m := range msgs {
			if fds, err := unix.ParseUnixRights(&m); err == nil {
				for _, fd := range fds {
					if listenerFd < 0 {
						listenerFd = fd
					} else {
						unix.Close(fd)
					}
				}
			}
		}
		if perr != nil {
			err = os.NewSyscallError("recvmsg", perr)
		}
	}
	if n < size {
		if listenerFd >= 0 {
			unix.Close(listenerFd)
		}
		return st, -1, io.EOF
	}
	if _, derr := binary.Decode(buf[:size], binary.NativeEndian, &rec); derr != nil {
		err = derr
	}
	st = SpawnStatus{Kind: rec.Kind, Step: rec.Step, Errno: rec.Errno, Ses: rec.Ses}
	if rest := buf[size:n]; len(rest) > 0 {
		st.Paths = strings.Split(strings.TrimSuffix(string(rest), "\x00"), "\x00")
	}
	return st, listenerFd, err
}

// StatusSocket returns the two ends of a status channel for Spawn: the
// parent reads records (and the listener fd) from the first; the second
// is Status. Both are close-on-exec.
func StatusSocket() (parent, child int, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, os.NewSyscallError("socketpair", err)
	}
	return fds[0], fds[1], nil
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

// LandlockSetup is a Landlock ruleset for the agent: its descriptor
// and landlock_restrict_self's flags.
type LandlockSetup struct {
	FD    int
	Flags uint32
	// Proc are rules beneath /proc, which the agent's first process
	// adds to the ruleset before it restricts itself, on the /proc it
	// sees (its PID namespace's own).
	Proc []LandlockPath
}

// LandlockPath is a path-beneath rule: the path and its rights
// (LANDLOCK_ACCESS_FS_*).
type LandlockPath struct {
	Path   string
	Access uint64
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
