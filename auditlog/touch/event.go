package touch

import (
	"net/netip"
	"path"
	"slices"
	"strings"
)

// Event is one audited syscall: its SYSCALL record with the CWD, PATH,
// SOCKADDR and OPENAT2 records of the same serial. Every field is the
// kernel's own copy, made when the call ran, not the caller's memory.
type Event struct {
	Serial  uint64
	Session uint32
	AUID    uint32
	PID     int
	PPID    int
	UID     uint32
	Comm    string
	Exe     string
	Arch    string // x86_64, i386, aarch64, ...
	Syscall string // name, resolved for Arch
	Exit    int64
	// Failed: the call failed (success=no): records the rules did not ask
	// for, such as the SYSCALL record of a Landlock denial. It touched
	// nothing; its paths are what it was refused.
	Failed bool
	// Errno is a failed call's error number (ENOENT: 2), 0 otherwise.
	// Exit follows auparse, which names the errno, and reads -1 then.
	Errno int
	Args  [4]uint64 // a0..a3 as recorded (registers, truncated by the kernel to the arch's width)
	// Flags are the open flags: a1 of open, a2 of openat and
	// open_by_handle_at, O_CREAT|O_WRONLY|O_TRUNC for creat, the OPENAT2
	// record's oflag for openat2; 0 for other calls.
	Flags uint64
	CWD   string
	Paths []Path
	Addr  *Sockaddr // connect, bind, sendto, sendmsg with an address
}

// Path is one PATH record: a name the kernel resolved during the call.
type Path struct {
	// Name is as the kernel recorded it: the string the caller passed
	// (relative to the CWD or a directory descriptor), or for a PARENT
	// item the caller spelled no directory for, the CWD's path (the
	// kernel assumes the name was relative to it, even when it was
	// relative to a descriptor: only Inode is sure); "" for (null).
	Name string
	// Abs is Name made absolute with the CWD, "" when Name is relative
	// to a directory descriptor other than the CWD, or null. It is a
	// string operation that keeps every ".." (see absName): symlinks are
	// not resolved (ResolvedAccesses does).
	Abs      string
	NameType string // NORMAL, PARENT, CREATE, DELETE, UNKNOWN
	Inode    uint64 // 0 when the record has none (a name that did not exist)
	Dev      string // major:minor, hex
	Mode     uint32 // st_mode, file type bits included
	// dirfd is the directory descriptor a relative Name starts from, -1
	// for the CWD or an absolute Name.
	dirfd int
}

// Sockaddr is a SOCKADDR record decoded.
type Sockaddr struct {
	Family string // inet, inet6, unix, netlink, or as auparse names others
	Addr   netip.Addr
	Port   uint16
	Path   string // unix sockets ("@name" for the abstract namespace)
}

// atFDCWD is AT_FDCWD as the kernel prints a 32-bit int argument.
const atFDCWD = 0xffffff9c

// dirfdArgs says which argument is the directory descriptor for the
// name at that position among the call's path arguments (-1: the name
// is relative to the CWD).
var dirfdArgs = map[string][]int{
	"openat": {0}, "openat2": {0}, "mkdirat": {0}, "unlinkat": {0}, "fchmodat": {0}, "fchownat": {0},
	"name_to_handle_at": {0}, "execveat": {0}, "renameat": {0, 2}, "renameat2": {0, 2}, "linkat": {0, 2}, "symlinkat": {1},
}

// Open flag bits this package reads (asm-generic values, the same on
// x86_64, i386, aarch64 and arm).
const (
	oAccMode = 0o3
	oRDONLY  = 0o0
	oWRONLY  = 0o1
	oRDWR    = 0o2
	oCreat   = 0o100
	oTrunc   = 0o1000
	oAppend  = 0o2000
	oPath    = 0o10000000
)

// openFlags reads the open flags of the call; oflag is the OPENAT2
// record's, printed by the kernel in octal.
func (ev *Event) openFlags(oflag uint64) uint64 {
	switch ev.Syscall {
	case "open":
		return ev.Args[1]
	case "openat", "open_by_handle_at":
		return ev.Args[2]
	case "creat":
		return oCreat | oWRONLY | oTrunc
	case "openat2":
		return oflag
	}
	return 0
}

// absName cleans an absolute name of empty and "." elements only. A
// ".." stays: the kernel takes it from wherever the elements before it
// led, through symlinks and /proc's magic links, so only a walk of the
// file system may remove it. Cleaned as a string,
// /proc/self/root/../run/secrets/token (the caller's root, then /run)
// became /proc/self/run/secrets/token, a /proc name.
func absName(name string) string {
	if !HasDotDot(name) {
		return path.Clean(name)
	}
	var elems []string
	for _, e := range strings.Split(name, "/") {
		if e != "" && e != "." {
			elems = append(elems, e)
		}
	}
	return "/" + strings.Join(elems, "/")
}

// HasDotDot reports a ".." element in a name: one only a walk of the
// file system can place (see absName).
func HasDotDot(name string) bool {
	return slices.Contains(strings.Split(name, "/"), "..")
}

// makeAbs fills Path.Abs: relative names join the CWD, unless the call
// named a directory descriptor for them.
//
// A name relative to another descriptor keeps Abs "" (ResolvedAccesses
// may place it through /proc while the caller lives). Its PARENT item
// does not help: for a parent the caller did not spell out, the kernel
// logs the CWD's path, assuming the name was relative to it
// (audit_log_name, name_len 0); only the item's inode is the real
// directory's. Measured: unlinkat(fd of ws/tree/sub, "b") recorded
// PARENT name=<cwd> with the inode of ws/tree/sub.
func (ev *Event) makeAbs() {
	named := 0 // index among the items that carry a caller's name
	for i := range ev.Paths {
		p := &ev.Paths[i]
		p.dirfd = -1
		switch {
		case p.Name == "":
		case path.IsAbs(p.Name):
			p.Abs = absName(p.Name)
		case ev.relativeToCWD(named):
			if ev.CWD != "" {
				p.Abs = absName(ev.CWD + "/" + p.Name)
			}
		default:
			p.dirfd = ev.dirfd(named)
		}
		if p.NameType != "PARENT" {
			named++
		}
	}
}

// dirfd returns the descriptor of the call's n-th named argument.
func (ev *Event) dirfd(n int) int {
	args := dirfdArgs[ev.Syscall]
	return int(int32(uint32(ev.Args[args[min(n, len(args)-1)]])))
}

// relativeToCWD reports whether the call's n-th named argument is
// relative to the CWD (AT_FDCWD or a call without a dirfd).
func (ev *Event) relativeToCWD(n int) bool {
	args, ok := dirfdArgs[ev.Syscall]
	if !ok {
		return true
	}
	a := args[min(n, len(args)-1)]
	return uint32(ev.Args[a]) == atFDCWD
}
