package landlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PathRule allows accesses beneath Path: on a directory, to everything
// under it; on a file, to that file (only the rights that apply to a file:
// read, write, exec).
type PathRule struct {
	Path                      string
	Read, Write, Exec, Delete bool
}

// Adjustment says where a rule could not be applied as written: Granted
// is the path that got rights instead ("" when the rule was skipped).
type Adjustment struct {
	Path    string
	Granted string
	Reason  string
}

func (a Adjustment) String() string {
	if a.Granted == "" {
		return fmt.Sprintf("%s: skipped: %s", a.Path, a.Reason)
	}
	return fmt.Sprintf("%s: granted on %s: %s", a.Path, a.Granted, a.Reason)
}

// Ruleset is a Landlock ruleset descriptor (close-on-exec). The launcher
// hands FD to the agent's first process, which restricts itself with it
// before execve; closing it afterwards does not lift the restriction.
type Ruleset struct {
	fd  int
	abi int
}

// FD returns the ruleset descriptor.
func (r *Ruleset) FD() int { return r.fd }

// ABI returns the ABI the ruleset was built for.
func (r *Ruleset) ABI() int { return r.abi }

// Close closes the descriptor.
func (r *Ruleset) Close() error {
	if r.fd < 0 {
		return nil
	}
	err := unix.Close(r.fd)
	r.fd = -1
	return err
}

// NewRuleset creates a ruleset handling every file-system right of abi
// (see HandledAccess) and adds one path-beneath rule per entry of rules.
// Landlock needs an open file for each rule, so a path that does not exist
// is skipped, except a write rule whose parent directory exists: that
// parent gets the create rights, so the agent can make the missing entry
// (wider than the rule; reported). Every such change comes back as an
// Adjustment. Pass a lower abi than ABI() to build what an older kernel
// would enforce.
func NewRuleset(abi int, rules []PathRule) (*Ruleset, []Adjustment, error) {
	return Build(abi, Spec{Files: true, Paths: rules})
}

// closeWith closes a ruleset that failed half-way and returns err with
// the close's error, if any.
func closeWith(rs *Ruleset, err error) error {
	return errors.Join(err, rs.Close())
}

func (rs *Ruleset) add(handled Access, r PathRule) ([]Adjustment, error) {
	fd, err := openPath(r.Path)
	if missing(err) {
		return rs.addCreateOnParent(handled, r)
	}
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, os.NewSyscallError("fstat", err)
	}
	access := r.Rights() & handled
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return nil, addPathBeneath(rs.fd, fd, access)
	}
	var adjusted []Adjustment
	if r.Delete {
		// Removing a file is a right on its directory.
		parent := filepath.Dir(r.Path)
		adj := Adjustment{Path: r.Path, Granted: parent, Reason: "delete of a file is granted on its directory"}
		if err := rs.addOnPath(parent, unix.LANDLOCK_ACCESS_FS_REMOVE_FILE&handled); err != nil {
			return nil, err
		}
		adjusted = append(adjusted, adj)
	}
	if access&fileRights == 0 {
		return adjusted, nil
	}
	return adjusted, addPathBeneath(rs.fd, fd, access&fileRights)
}

// addCreateOnParent handles a rule whose path does not exist.
func (rs *Ruleset) addCreateOnParent(handled Access, r PathRule) ([]Adjustment, error) {
	if !r.Write {
		return []Adjustment{{Path: r.Path, Reason: "does not exist"}}, nil
	}
	parent := filepath.Dir(r.Path)
	access := (r.Rights() | createRights) & handled
	err := rs.addOnPath(parent, access)
	if missing(err) {
		return []Adjustment{{Path: r.Path, Reason: "neither it nor its parent exists"}}, nil
	}
	if err != nil {
		return nil, err
	}
	return []Adjustment{{Path: r.Path, Granted: parent, Reason: "does not exist yet: its directory may create it"}}, nil
}

func (rs *Ruleset) addOnPath(path string, access Access) error {
	fd, err := openPath(path)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return addPathBeneath(rs.fd, fd, access)
}

func openPath(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, nil
}

func missing(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)
}

func addPathBeneath(ruleset, parent int, access Access) error {
	attr := unix.LandlockPathBeneathAttr{Allowed_access: uint64(access), Parent_fd: int32(parent)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset),
		unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return os.NewSyscallError("landlock_add_rule", errno)
	}
	return nil
}

// RestrictFlags are landlock_restrict_self flags (ABI 7).
type RestrictFlags uintptr

const (
	// RestrictLogSameExecOff: no audit record for denials of the
	// restricting program itself before it execs (the launcher's own
	// steps).
	RestrictLogSameExecOff RestrictFlags = unix.LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF
	// RestrictLogNewExecOn: audit records for denials after execve. The
	// kernel's default is off, because a launcher's sandboxee is not the
	// program that asked; sysgate wants exactly those records.
	RestrictLogNewExecOn RestrictFlags = unix.LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON
)

// RestrictSelf puts the calling thread (and every task it forks or
// execs from now on) under ruleset, with landlock_restrict_self. It acts
// on the calling OS thread only: lock the goroutine to it. The thread
// needs no_new_privs or CAP_SYS_ADMIN. Flags need ABI 7; pass 0 on older
// kernels.
func RestrictSelf(ruleset int, flags RestrictFlags) error {
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), uintptr(flags), 0)
	if errno != 0 {
		return os.NewSyscallError("landlock_restrict_self", errno)
	}
	return nil
}

// LogFlags are the restrict flags a launcher passes for abi: log the
// agent's denials (after execve) and not the launcher's own; none before
// ABI 7, whose kernels reject the flags and have no Landlock audit.
func LogFlags(abi int) RestrictFlags {
	if abi < 7 {
		return 0
	}
	return RestrictLogNewExecOn | RestrictLogSameExecOff
}
