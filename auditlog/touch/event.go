package touch

import (
	"fmt"
	"net/netip"
	"path"
	"strconv"
	"strings"

	"github.com/elastic/go-libaudit/v2/auparse"
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
	Args   [4]uint64 // a0..a3 as recorded (registers, truncated by the kernel to the arch's width)
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
	// Abs is Name made absolute with the CWD and cleaned, "" when Name
	// is relative to a directory descriptor other than the CWD, or null.
	// It is a string operation: symlinks are not resolved (ResolvedAccesses does).
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

// newEvent builds an Event from the messages of one serial. Messages of
// types it does not use (PROCTITLE, EOE, the LOGIN record of a loginuid
// write) are skipped.
func newEvent(msgs []*auparse.AuditMessage) (Event, error) {
	var ev Event
	var syscallSeen bool
	var oflag string
	for _, m := range msgs {
		switch m.RecordType {
		case auparse.AUDIT_SYSCALL:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			ev.Serial = uint64(m.Sequence)
			if err := ev.fillSyscall(d); err != nil {
				return ev, fmt.Errorf("audit event %d: %w", m.Sequence, err)
			}
			syscallSeen = true
		case auparse.AUDIT_CWD:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			ev.CWD = d["cwd"]
		case auparse.AUDIT_PATH:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			ev.Paths = append(ev.Paths, pathOf(d))
		case auparse.AUDIT_SOCKADDR:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			ev.Addr = sockaddrOf(d)
		case auparse.AUDIT_OPENAT2:
			d, err := m.Data()
			if err != nil {
				return ev, err
			}
			oflag = d["oflag"]
		}
	}
	if !syscallSeen {
		return ev, fmt.Errorf("audit event without a SYSCALL record (%d records)", len(msgs))
	}
	ev.Flags = ev.openFlags(oflag)
	ev.makeAbs()
	return ev, nil
}

func (ev *Event) fillSyscall(d map[string]string) error {
	var errs []string
	num := func(key string, base, bits int) uint64 {
		v, err := strconv.ParseUint(d[key], base, bits)
		if err != nil {
			errs = append(errs, key)
		}
		return v
	}
	ev.Session = uint32(num("ses", 10, 32))
	ev.AUID = uint32(num("auid", 10, 32))
	ev.PID = int(num("pid", 10, 31))
	ev.PPID = int(num("ppid", 10, 31))
	ev.UID = uint32(num("uid", 10, 32))
	for i := range ev.Args {
		ev.Args[i] = num("a"+strconv.Itoa(i), 16, 64)
	}
	exit, err := strconv.ParseInt(d["exit"], 10, 64)
	switch {
	case d["success"] == "no" || d["result"] == "fail":
		// success=1 rules never record a failed call; another part of the
		// kernel did (a Landlock denial logs its SYSCALL record): the
		// call did not happen. auparse names its errno (EACCES, ...).
		ev.Failed = true
		if err != nil {
			exit = -1
		}
	case err != nil:
		errs = append(errs, "exit")
	}
	ev.Exit = exit
	ev.Comm, ev.Exe, ev.Arch, ev.Syscall = d["comm"], d["exe"], d["arch"], d["syscall"]
	if ev.Syscall == "" || ev.Arch == "" {
		errs = append(errs, "syscall/arch")
	}
	if len(errs) > 0 {
		return fmt.Errorf("bad %s", strings.Join(errs, ", "))
	}
	return nil
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

func (ev *Event) openFlags(oflag string) uint64 {
	switch ev.Syscall {
	case "open":
		return ev.Args[1]
	case "openat", "open_by_handle_at":
		return ev.Args[2]
	case "creat":
		return oCreat | oWRONLY | oTrunc
	case "openat2":
		v, _ := strconv.ParseUint(oflag, 8, 64) // printed as 0%llo
		return v
	}
	return 0
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
			p.Abs = path.Clean(p.Name)
		case ev.relativeToCWD(named):
			if ev.CWD != "" {
				p.Abs = path.Join(ev.CWD, p.Name)
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

func pathOf(d map[string]string) Path {
	p := Path{Name: d["name"], NameType: d["nametype"], Dev: d["dev"]}
	if p.Name == "(null)" {
		p.Name = ""
	}
	p.Inode, _ = strconv.ParseUint(d["inode"], 10, 64)
	mode, _ := strconv.ParseUint(d["mode"], 8, 32)
	p.Mode = uint32(mode)
	return p
}

func sockaddrOf(d map[string]string) *Sockaddr {
	s := &Sockaddr{Family: d["family"], Path: d["path"]}
	switch s.Family {
	case "ipv4":
		s.Family = "inet"
	case "ipv6":
		s.Family = "inet6"
	case "local":
		s.Family = "unix"
	}
	if a, err := netip.ParseAddr(d["addr"]); err == nil {
		s.Addr = a
	}
	if port, err := strconv.ParseUint(d["port"], 10, 16); err == nil {
		s.Port = uint16(port)
	}
	return s
}
