package touch

import (
	"fmt"
	"strings"
)

// Audit record types the parser reads (linux/audit.h).
const (
	typeSyscall   = 1300
	typePath      = 1302
	typeSockaddr  = 1306
	typeCWD       = 1307
	typeEOE       = 1320
	typeProctitle = 1327
	typeOpenat2   = 1337
)

// fieldID names the fields the parser keeps, of every record type.
type fieldID uint8

const (
	fArch fieldID = iota
	fSyscall
	fExe
	fComm
	fSuccess
	fRes
	fResult
	fExit
	fSes
	fAUID
	fPID
	fPPID
	fUID
	fA0
	fA1
	fA2
	fA3
	fName
	fNametype
	fDev
	fInode
	fMode
	fCWD
	fSaddr
	fFamily
	fAddr
	fPort
	fPath
	fOflag
	nFields
)

func fieldOf(key []byte) (fieldID, bool) {
	switch string(key) {
	case "arch":
		return fArch, true
	case "syscall":
		return fSyscall, true
	case "exe":
		return fExe, true
	case "comm":
		return fComm, true
	case "success":
		return fSuccess, true
	case "res":
		return fRes, true
	case "result":
		return fResult, true
	case "exit":
		return fExit, true
	case "ses":
		return fSes, true
	case "auid":
		return fAUID, true
	case "pid":
		return fPID, true
	case "ppid":
		return fPPID, true
	case "uid":
		return fUID, true
	case "a0":
		return fA0, true
	case "a1":
		return fA1, true
	case "a2":
		return fA2, true
	case "a3":
		return fA3, true
	case "name":
		return fName, true
	case "nametype":
		return fNametype, true
	case "dev":
		return fDev, true
	case "inode":
		return fInode, true
	case "mode":
		return fMode, true
	case "cwd":
		return fCWD, true
	case "saddr":
		return fSaddr, true
	case "family":
		return fFamily, true
	case "addr":
		return fAddr, true
	case "port":
		return fPort, true
	case "path":
		return fPath, true
	case "oflag":
		return fOflag, true
	}
	return 0, false
}

// field is the last kept value of a key: orig as matched, val trimmed.
type field struct {
	orig, val []byte
	set       bool
}

// fields holds one record's fields; the slices point into the record.
// Only those in mask are the current record's: resetting the mask is
// cheaper than clearing the slices.
type fields struct {
	f    [nFields]field
	mask uint32
}

func (fs *fields) add(key, orig []byte) {
	id, ok := fieldOf(key)
	if !ok {
		return
	}
	if v := trimValue(orig); !dropped(v) {
		fs.f[id] = field{orig: orig, val: v, set: true}
		fs.mask |= 1 << id
	}
}

// get returns field id of the current record, the zero field if absent.
func (fs *fields) get(id fieldID) field {
	if fs.mask&(1<<id) == 0 {
		return field{}
	}
	return fs.f[id]
}

// part is what one record contributes to its event, decoded when the
// record arrives (Push keeps no record bytes).
type part struct {
	typ  uint16
	err  error // the record's fields could not be read
	sys  syscallPart
	path Path
	cwd  string
	addr *Sockaddr
	// oflag is the OPENAT2 record's oflag, read as openFlags reads it.
	oflag uint64
}

// syscallPart is a SYSCALL record's share of an Event.
type syscallPart struct {
	serial               uint32
	ses, auid, uid       uint32
	pid, ppid            int
	args                 [4]uint64
	exit                 int64
	errno                int
	failed               bool
	comm, exe, arch, sys string
}

// errnoNamed reports whether auparse names errno n (its table has 1..133
// but for 41 and 58), turning a negative exit into a name.
func errnoNamed(n int64) bool { return n >= 1 && n <= 133 && n != 41 && n != 58 }

// isSuccess is auparse's reading of success= or res=.
func isSuccess(v []byte) bool {
	s := strings.ToLower(string(v))
	return s == "yes" || s == "1" || strings.HasPrefix(s, "suc")
}

func badField(errs []string) error {
	return fmt.Errorf("bad %s", strings.Join(errs, ", "))
}
