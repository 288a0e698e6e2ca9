package touch

import "github.com/sysgate/sysgate/internal/filecalls"

// Op is what a call did to a file.
type Op uint8

const (
	Read Op = iota + 1
	Write
	Exec
	Delete
)

func (o Op) String() string {
	switch o {
	case Read:
		return "read"
	case Write:
		return "write"
	case Exec:
		return "exec"
	case Delete:
		return "delete"
	}
	return "op?"
}

// Access is one file access of an Event.
type Access struct {
	// Path is the item's absolute name as recorded (Path.Abs); ResolvedAccesses
	// replaces it by the file the kernel really reached.
	Path    string
	Op      Op
	Syscall string
	// Item is the PATH record it comes from (inode, dev, name type).
	Item Path
	// Unverified: the file the kernel reached could not be tied to a
	// path (the name was relative to a directory descriptor, no name was
	// recorded, or resolving it now leads to another inode). Path is
	// then only a candidate.
	Unverified bool
}

// FileAccesses maps the event to the file accesses it made, by the
// call's semantics and the PATH items' name types:
//   - opens: O_ACCMODE read and/or write, O_CREAT, O_TRUNC and O_APPEND
//     write; O_PATH is no access (a later /proc/self/fd/N reopen is an
//     open of that name, reported as such);
//   - unlink, rmdir: delete; rename: delete of the source, write of the
//     destination; link: read of the source (a new name gives access to
//     it), write of the new name; symlink: write of the new name;
//   - mkdir, mknod: write of the new name; a change in place (truncate,
//     the chmod, chown, xattr and times calls: filecalls.Change) is a
//     write of the file; by a descriptor (fchmod, fsetxattr, futimens)
//     the item has no name, only the inode the kernel recorded (no item
//     at all for futimens), and the access is Unverified until the
//     resolver or the run's records tie it to a path;
//   - execve, execveat: exec of every NORMAL item (the program, a
//     script's interpreter, ld.so);
//   - unix sockets: bind writes the socket file, connect and sendto or
//     sendmsg to a path write to it (docker.sock is a way out);
//   - name_to_handle_at: read (the handle opens the file later without a
//     lookup).
//
// PARENT items are directories searched, not accessed. The result is
// pure: nothing is resolved (see ResolvedAccesses).
func (e Event) FileAccesses() []Access {
	var out []Access
	add := func(p Path, op Op) {
		out = append(out, Access{Path: p.Abs, Op: op, Syscall: e.Syscall, Item: p, Unverified: p.Abs == ""})
	}
	// The object of a call is its last non-PARENT item: an open through
	// a symlink records the link's directory and the target's items.
	for i, p := range e.Paths {
		switch p.NameType {
		case "PARENT", "UNKNOWN":
			continue
		}
		switch e.Syscall {
		case "open", "openat", "openat2", "creat", "open_by_handle_at":
			if !e.lastObject(i) {
				continue
			}
			for _, op := range openOps(e.Flags) {
				add(p, op)
			}
		case "unlink", "unlinkat", "rmdir":
			if p.NameType == "DELETE" {
				add(p, Delete)
			}
		case "rename", "renameat", "renameat2":
			switch {
			case p.NameType == "CREATE":
				add(p, Write)
			case p.NameType == "DELETE" && !e.created(p.Name):
				add(p, Delete)
			}
		case "link", "linkat":
			if p.NameType == "CREATE" {
				add(p, Write)
			} else {
				add(p, Read)
			}
		case "symlink", "symlinkat", "mkdir", "mkdirat", "mknod", "mknodat":
			if p.NameType == "CREATE" {
				add(p, Write)
			}
		case "execve", "execveat":
			add(p, Exec)
		case "bind":
			if p.NameType == "CREATE" {
				add(p, Write) // a unix socket file
			}
		case "connect", "sendto", "sendmsg":
			add(p, Write) // a unix socket file: /var/run/docker.sock is a door
		case "name_to_handle_at":
			// A handle opens the file later without a path lookup: count
			// the lookup as a read, so a handle never hides a file.
			add(p, Read)
		default:
			if filecalls.EffectOf(e.Syscall) == filecalls.Change {
				add(p, Write)
			}
		}
	}
	if out == nil && e.byDescriptorOnly() {
		// futimens: the kernel records no item for a change through a
		// descriptor without a name; the descriptor says which file.
		add(Path{dirfd: -1}, Write)
	}
	return out
}

// ChangedFD is the descriptor a change through a descriptor named
// (fchmod(fd), futimens(fd)); ok=false for any other call.
func (e Event) ChangedFD() (fd int, ok bool) {
	if !e.byDescriptorOnly() {
		return -1, false
	}
	return int(int32(uint32(e.Args[0]))), true
}

// OpenedFD is the descriptor a successful open returned.
func (e Event) OpenedFD() (fd int, ok bool) {
	if !openCall(e.Syscall) || e.Failed || e.Exit < 0 {
		return -1, false
	}
	return int(e.Exit), true
}

// byDescriptorOnly reports a change through the descriptor in the
// first argument that named no path: fchmod and the like, or
// utimensat and futimesat with a NULL path.
func (e Event) byDescriptorOnly() bool {
	switch filecalls.NamingOf(e.Syscall) {
	case filecalls.ByDescriptor:
		return true
	case filecalls.PathOrDescriptor:
		return e.Args[1] == 0
	}
	return false
}

// lastObject reports whether item i is the last non-PARENT item: an
// open records one object, but through a symlink the kernel adds items
// for the link's target, and the last one is the file opened.
func (e Event) lastObject(i int) bool {
	for _, p := range e.Paths[i+1:] {
		if p.NameType != "PARENT" && p.NameType != "UNKNOWN" {
			return false
		}
	}
	return true
}

// created reports whether the event also created name (a rename over an
// existing file records the old destination as DELETE, and the new as
// CREATE: that is a write, not a delete).
func (e Event) created(name string) bool {
	for _, p := range e.Paths {
		if p.NameType == "CREATE" && p.Name == name {
			return true
		}
	}
	return false
}

func openOps(flags uint64) []Op {
	if flags&oPath != 0 {
		return nil
	}
	var ops []Op
	switch flags & oAccMode {
	case oRDONLY:
		ops = append(ops, Read)
	case oWRONLY:
		ops = append(ops, Write)
	case oRDWR:
		ops = append(ops, Read, Write)
	}
	if flags&(oCreat|oTrunc|oAppend) != 0 && flags&oAccMode == oRDONLY {
		ops = append(ops, Write)
	}
	return ops
}
