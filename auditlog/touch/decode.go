package touch

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/sysgate/sysgate/internal/scmp"
)

// decoder turns records into parts. It caches the strings that repeat
// from event to event (comm, exe, cwd, arch and syscall names, devices,
// name types) so a steady stream allocates little beyond the paths.
type decoder struct {
	fs      fields
	scratch []byte
	strs    map[string]string
	names   map[nameKey]resolvedName
	// syscallName names a call; scmpName unless a test compares with
	// another table.
	syscallName func(auditArch uint32, nr int64) (arch, name string, ok bool)
}

type nameKey struct {
	auditArch uint32
	nr        int64
}

type resolvedName struct{ arch, name string }

var argNames = [4]string{"a0", "a1", "a2", "a3"}

// Bound on each cache: an agent spawning endless distinct binaries or
// directories must not grow it without limit.
const maxCached = 4096

func newDecoder() *decoder {
	return &decoder{strs: map[string]string{}, names: map[nameKey]resolvedName{}, syscallName: scmpName}
}

// scmpName names the arch as sysgate's baselines do and the call as
// libseccomp does (x32 calls included); an arch sysgate does not know
// reads "unknown[HEX]", as auparse printed it.
func scmpName(auditArch uint32, nr int64) (arch, name string, ok bool) {
	a, _, known := scmp.FromAudit(auditArch, 0)
	if !known {
		return fmt.Sprintf("unknown[%x]", auditArch), "", false
	}
	arch = a.String()
	if nr < -1<<31 || nr >= 1<<31 {
		return arch, "", false
	}
	sa, n, _ := scmp.FromAudit(auditArch, int(nr))
	name, ok = scmp.Name(sa, n)
	return arch, name, ok
}

// str returns b as a string, shared with earlier equal ones.
func (d *decoder) str(b []byte) string {
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	if len(d.strs) >= maxCached {
		clear(d.strs)
	}
	s := string(b)
	d.strs[s] = s
	return s
}

// decode reads one record's fields into p. body is the record's text
// after its header; nil when auparse would have read no fields from it.
func (d *decoder) decode(p *part, body []byte) {
	if body == nil {
		p.err = errNoContent
		return
	}
	d.fs.mask = 0
	scanFields(body, d.fs.add)
	switch p.typ {
	case typeSyscall:
		p.err = d.syscall(&p.sys)
	case typePath:
		d.path(&p.path)
	case typeCWD:
		p.cwd = d.text(d.fs.get(fCWD))
	case typeSockaddr:
		p.addr, p.err = d.sockaddr()
	case typeOpenat2:
		p.oflag, _ = parseUint(d.fs.get(fOflag).val, 8, 64)
	}
}

// text is a hex-decoded field's value ("" when absent).
func (d *decoder) text(f field) string {
	if !f.set {
		return ""
	}
	d.scratch = hexText(f.orig, f.val, d.scratch)
	return d.str(d.scratch)
}

func (d *decoder) syscall(s *syscallPart) error {
	fs := &d.fs
	if !fs.get(fArch).set || !fs.get(fSyscall).set || !fs.get(fExe).set {
		return errors.New("arch, syscall or exe key not found")
	}
	auditArch, err := parseInt(fs.get(fArch).val, 16, 64)
	if err != nil {
		return fmt.Errorf("failed to parse arch: %w", err)
	}
	nr, err := parseInt(fs.get(fSyscall).val, 10, 64)
	if err != nil {
		return fmt.Errorf("failed to parse syscall: %w", err)
	}
	s.arch, s.sys = d.name(uint32(auditArch), nr)
	if s.sys == "" {
		s.sys = d.str(fs.get(fSyscall).val)
	}
	s.exe = d.text(fs.get(fExe))
	s.comm = d.str(fs.get(fComm).val)

	var bad []string
	num := func(id fieldID, name string, base, bits int) uint64 {
		v, err := parseUint(fs.get(id).val, base, bits)
		if err != nil {
			bad = append(bad, name)
		}
		return v
	}
	// auparse renames an unset id ("unset"), which then fails to parse.
	for _, id := range []fieldID{fSes, fAUID} {
		if v := string(fs.get(id).val); v == "4294967295" || v == "-1" {
			fs.mask &^= 1 << id
		}
	}
	s.ses = uint32(num(fSes, "ses", 10, 32))
	s.auid = uint32(num(fAUID, "auid", 10, 32))
	s.pid = int(num(fPID, "pid", 10, 31))
	s.ppid = int(num(fPPID, "ppid", 10, 31))
	s.uid = uint32(num(fUID, "uid", 10, 32))
	for i := range s.args {
		s.args[i] = num(fA0+fieldID(i), argNames[i], 16, 64)
	}
	s.failed = d.failed()
	exit, err := parseInt(fs.get(fExit).val, 10, 64)
	s.errno = 0
	if err == nil && exit < 0 && s.failed && -exit < 4096 {
		s.errno = int(-exit)
	}
	if err == nil && exit < 0 && errnoNamed(-exit) {
		err = errors.New("exit named") // auparse printed it as EACCES, ...
	}
	switch {
	case s.failed && err != nil:
		exit = -1
	case err != nil:
		bad = append(bad, "exit")
	}
	s.exit = exit
	if len(bad) > 0 {
		return badField(bad)
	}
	return nil
}

// failed is auparse's result=fail: from success=, else res=, else a
// result= field as recorded.
func (d *decoder) failed() bool {
	fs := &d.fs
	switch {
	case fs.get(fSuccess).set:
		return !isSuccess(fs.get(fSuccess).val)
	case fs.get(fRes).set:
		return !isSuccess(fs.get(fRes).val)
	}
	return string(fs.get(fResult).val) == "fail"
}

// name resolves a syscall, cached per arch and number; name is "" when
// the table has none.
func (d *decoder) name(auditArch uint32, nr int64) (arch, name string) {
	k := nameKey{auditArch, nr}
	if v, ok := d.names[k]; ok {
		return v.arch, v.name
	}
	arch, name, ok := d.syscallName(auditArch, nr)
	if !ok {
		name = ""
	}
	if len(d.names) >= maxCached {
		clear(d.names)
	}
	d.names[k] = resolvedName{arch, name}
	return arch, name
}

func (d *decoder) path(p *Path) {
	fs := &d.fs
	p.Name = d.text(fs.get(fName))
	if p.Name == "(null)" {
		p.Name = ""
	}
	p.NameType, p.Dev = d.str(fs.get(fNametype).val), d.str(fs.get(fDev).val)
	p.Inode, _ = parseUint(fs.get(fInode).val, 10, 64)
	mode, _ := parseUint(fs.get(fMode).val, 8, 32)
	p.Mode = uint32(mode)
}

// sockaddr decodes saddr as auparse did, fields of the record itself
// standing where the family does not set them.
func (d *decoder) sockaddr() (*Sockaddr, error) {
	fs := &d.fs
	if !fs.get(fSaddr).set {
		return nil, errors.New("saddr key not found")
	}
	s := fs.get(fSaddr).val
	if len(s) < 4 {
		return nil, fmt.Errorf("failed to parse saddr: too short: %d", len(s))
	}
	fam, err := parseInt([]byte{s[2], s[3], s[0], s[1]}, 16, 32) // host order
	if err != nil {
		return nil, fmt.Errorf("failed to parse saddr: %w", err)
	}
	sa := &Sockaddr{Path: d.str(fs.get(fPath).val)}
	if fs.get(fAddr).set {
		sa.Addr, _ = netip.ParseAddr(string(fs.get(fAddr).val))
	}
	if fs.get(fPort).set {
		if port, err := parseUint(fs.get(fPort).val, 10, 16); err == nil {
			sa.Port = uint16(port)
		}
	}
	switch fam {
	case 1:
		path, ok := upperHexString(s[4:])
		if !ok {
			return nil, errors.New("failed to parse saddr: unix path")
		}
		sa.Family, sa.Path = "unix", d.str(path)
	case 2, 10:
		if err := inetSockaddr(sa, s, fam == 10); err != nil {
			return nil, fmt.Errorf("failed to parse saddr: %w", err)
		}
	case 16:
		sa.Family = "netlink"
	default:
		sa.Family = d.str(strconv.AppendInt(d.scratch[:0], fam, 10))
	}
	return sa, nil
}
