package kernel

import (
	"path/filepath"
	"strings"

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
