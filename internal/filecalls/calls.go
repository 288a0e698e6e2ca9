package filecalls

import (
	"slices"
	"sort"
)

// Effect is what a call does to the file it names.
type Effect uint8

// The effects; the zero value is invalid.
const (
	// Open: read, write or both, by its flags (O_PATH: neither).
	Open Effect = iota + 1
	// Lookup: finds the file without opening it, for a later open past
	// every path (name_to_handle_at): judged a read.
	Lookup
	// Create: a new name (mkdir, mknod, symlink): a write.
	Create
	// Change: the file's content length, mode, owner, extended
	// attributes or times, in place. The files section judges a
	// metadata change as a write of the file: whoever may change it may
	// write it (docs/coverage.md).
	Change
	// Remove: unlink, rmdir: a delete.
	Remove
	// Move: rename: a delete of the source, a write of the destination.
	Move
	// Link: a new name for a file: a read of the source, a write of the
	// new name.
	Link
	// Exec: runs the file.
	Exec
)

// Naming is how a call names its file.
type Naming uint8

// The namings; the zero value is invalid.
const (
	// ByPath: a path, relative to the CWD or a directory descriptor.
	ByPath Naming = iota + 1
	// ByDescriptor: an open descriptor, the call's first argument: the
	// file it was opened on, whatever its access mode (fchmod works on a
	// descriptor opened read-only).
	ByDescriptor
	// PathOrDescriptor: a path, or with a NULL path the descriptor in
	// the first argument (utimensat(fd, NULL, ...) is futimens).
	PathOrDescriptor
	// ByHandle: a file handle (open_by_handle_at), past every path.
	ByHandle
)

// Call is one observed syscall.
type Call struct {
	Name   string
	Effect Effect
	Naming Naming
}

// observed are the calls both file observers watch, on every arch that
// has them (aarch64 has only the *at forms; the 32-bit ABIs add the
// *32 and *64 and *_time64 forms).
var observed = []Call{
	{"open", Open, ByPath}, {"openat", Open, ByPath}, {"openat2", Open, ByPath}, {"creat", Open, ByPath},
	{"open_by_handle_at", Open, ByHandle}, {"name_to_handle_at", Lookup, ByPath},
	{"mkdir", Create, ByPath}, {"mkdirat", Create, ByPath},
	{"mknod", Create, ByPath}, {"mknodat", Create, ByPath},
	{"symlink", Create, ByPath}, {"symlinkat", Create, ByPath},
	{"unlink", Remove, ByPath}, {"unlinkat", Remove, ByPath}, {"rmdir", Remove, ByPath},
	{"rename", Move, ByPath}, {"renameat", Move, ByPath}, {"renameat2", Move, ByPath},
	{"link", Link, ByPath}, {"linkat", Link, ByPath},
	{"truncate", Change, ByPath}, {"truncate64", Change, ByPath},
	{"chmod", Change, ByPath}, {"fchmodat", Change, ByPath}, {"fchmodat2", Change, ByPath},
	{"chown", Change, ByPath}, {"chown32", Change, ByPath}, {"lchown", Change, ByPath},
	{"lchown32", Change, ByPath}, {"fchownat", Change, ByPath},
	{"setxattr", Change, ByPath}, {"lsetxattr", Change, ByPath},
	{"removexattr", Change, ByPath}, {"lremovexattr", Change, ByPath},
	{"utime", Change, ByPath}, {"utimes", Change, ByPath},
	{"futimesat", Change, PathOrDescriptor}, {"utimensat", Change, PathOrDescriptor},
	{"utimensat_time64", Change, PathOrDescriptor},
	{"fchmod", Change, ByDescriptor}, {"fchown", Change, ByDescriptor}, {"fchown32", Change, ByDescriptor},
	{"fsetxattr", Change, ByDescriptor}, {"fremovexattr", Change, ByDescriptor},
	{"execve", Exec, ByPath}, {"execveat", Exec, ByPath},
}

var byName = func() map[string]Call {
	m := make(map[string]Call, len(observed))
	for _, c := range observed {
		m[c.Name] = c
	}
	return m
}()

// Observed returns the observed calls, in the table's order.
func Observed() []Call { return slices.Clone(observed) }

// Names returns the names of the observed calls, sorted.
func Names() []string {
	out := make([]string, 0, len(observed))
	for _, c := range observed {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// Get returns the observed call called name.
func Get(name string) (Call, bool) {
	c, ok := byName[name]
	return c, ok
}

// EffectOf is the effect of the observed call name (0: not observed).
func EffectOf(name string) Effect { return byName[name].Effect }

// NamingOf is how the observed call name names its file (0: not
// observed).
func NamingOf(name string) Naming { return byName[name].Naming }
