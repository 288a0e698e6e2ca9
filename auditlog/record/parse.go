package record

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sysgate/sysgate/internal/scmp"
)

// ErrMalformed is returned for an audit record the parser cannot read.
var ErrMalformed = errors.New("malformed audit record")

// Header reads "audit(SEC.MSEC:SERIAL): " at the start of every audit
// record (of any type) and returns the rest.
func Header(data []byte) (serial uint64, t time.Time, rest []byte, err error) {
	const prefix = "audit("
	if !bytes.HasPrefix(data, []byte(prefix)) {
		return 0, t, nil, fmt.Errorf("%w: no audit( header", ErrMalformed)
	}
	data = data[len(prefix):]
	end := bytes.IndexByte(data, ')')
	if end < 0 {
		return 0, t, nil, fmt.Errorf("%w: unterminated header", ErrMalformed)
	}
	stamp := data[:end]
	colon := bytes.IndexByte(stamp, ':')
	dot := bytes.IndexByte(stamp, '.')
	if colon < 0 || dot < 0 || dot > colon {
		return 0, t, nil, fmt.Errorf("%w: bad header %q", ErrMalformed, stamp)
	}
	sec, ok1 := atou(stamp[:dot])
	msec, ok2 := atou(stamp[dot+1 : colon])
	serial, ok3 := atou(stamp[colon+1:])
	if !ok1 || !ok2 || !ok3 || msec > 999 || sec > 1<<40 {
		return 0, t, nil, fmt.Errorf("%w: bad header %q", ErrMalformed, stamp)
	}
	rest = data[end+1:]
	if len(rest) > 0 && rest[0] == ':' {
		rest = rest[1:]
	}
	return serial, time.Unix(int64(sec), int64(msec)*int64(time.Millisecond)), rest, nil
}

// Seccomp is a type-1326 record decoded without allocating: Comm and Exe
// still point into the record (possibly hex-encoded), so a reader can
// route it (by Ses) or recognise it (by Comm) before paying for a
// SeccompEvent. It is valid only as long as the record's bytes are.
type Seccomp struct {
	Serial    uint64
	Time      time.Time
	Ses       uint32
	PID       int
	UID       uint32
	AuditArch uint32
	Nr        int // as the record says: x32 calls carry their flag bit
	Compat    bool
	IP        uint64
	Code      uint32
	Comm, Exe Text
}

// Text is an audit string field as it stands in the record.
type Text struct {
	Raw    []byte
	Quoted bool // Raw is the text between the quotes; else hex or a bare word
}

const (
	seenSes = 1 << iota
	seenPID
	seenArch
	seenSyscall
	seenAll = seenSes | seenPID | seenArch | seenSyscall
)

// DecodeSeccomp decodes a type-1326 record's text into r without
// allocating. The error matches ErrMalformed.
func DecodeSeccomp(data []byte, r *Seccomp) error {
	serial, t, rest, err := Header(data)
	if err != nil {
		return err
	}
	*r = Seccomp{Serial: serial, Time: t}
	seen := 0
	for len(rest) > 0 {
		for len(rest) > 0 && (rest[0] == ' ' || rest[0] == 0 || rest[0] == '\n') {
			rest = rest[1:]
		}
		eq := 0
		for eq < len(rest) && rest[eq] != '=' {
			eq++
		}
		if eq == len(rest) {
			break
		}
		key := rest[:eq]
		rest = rest[eq+1:]
		var val []byte
		quoted := false
		if len(rest) > 0 && rest[0] == '"' {
			end := bytes.IndexByte(rest[1:], '"')
			if end < 0 {
				return fmt.Errorf("%w: unterminated quote in %s", ErrMalformed, key)
			}
			val, rest, quoted = rest[1:1+end], rest[2+end:], true
		} else {
			end := 0
			for end < len(rest) && rest[end] != ' ' {
				end++
			}
			val, rest = rest[:end], rest[end:]
		}
		var ok bool
		switch string(key) {
		case "ses":
			r.Ses, ok = atou32(val)
			seen |= seenSes
		case "pid":
			r.PID, ok = atoi31(val)
			seen |= seenPID
		case "uid":
			r.UID, ok = atou32(val)
		case "arch":
			r.AuditArch, ok = hex32(val)
			seen |= seenArch
		case "syscall":
			r.Nr, ok = atoi31(val)
			seen |= seenSyscall
		case "compat":
			r.Compat, ok = len(val) == 1 && val[0] == '1', len(val) == 1
		case "ip":
			r.IP, ok = hexu(bytes.TrimPrefix(val, []byte("0x")))
		case "code":
			r.Code, ok = hex32(bytes.TrimPrefix(val, []byte("0x")))
		case "comm":
			r.Comm, ok = Text{val, quoted}, true
		case "exe":
			r.Exe, ok = Text{val, quoted}, true
		default:
			ok = true // auid, gid, subj, sig, fields of newer kernels
		}
		if !ok {
			return fmt.Errorf("%w: bad %s=%q", ErrMalformed, key, val)
		}
	}
	if seen != seenAll {
		return fmt.Errorf("%w: missing ses, pid, arch or syscall", ErrMalformed)
	}
	return nil
}

func atou(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

func atou32(b []byte) (uint32, bool) {
	v, ok := atou(b)
	return uint32(v), ok && v <= 0xffffffff
}

// atoi31 reads a non-negative int that fits 31 bits (pids, syscall numbers).
func atoi31(b []byte) (int, bool) {
	v, ok := atou(b)
	return int(v), ok && v < 1<<31
}

func hex32(b []byte) (uint32, bool) {
	v, ok := hexu(b)
	return uint32(v), ok && v <= 0xffffffff
}

func hexu(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		d, ok := unhex(c)
		if !ok {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Parser turns records into SeccompEvents. It caches decoded comm/exe
// strings and syscall names, so a steady stream allocates only the event
// itself. A Parser is not safe for concurrent use.
type Parser struct {
	strs    map[string]string
	names   map[nameKey]resolved
	scratch []byte
}

type nameKey struct {
	auditArch uint32
	nr        int
}

type resolved struct {
	arch scmp.Arch
	nr   int
	name string
}

// Bound on the string cache: an agent spawning endless distinct binaries
// must not grow it without limit.
const maxCachedStrings = 4096

// NewParser returns an empty Parser.
func NewParser() *Parser {
	return &Parser{strs: map[string]string{}, names: map[nameKey]resolved{}}
}

// Parse decodes one record of type typ. It returns ErrMalformed for a
// type-1326 record it cannot read and for other types.
func (p *Parser) Parse(typ uint16, data []byte) (*SeccompEvent, error) {
	if typ != TypeSeccomp {
		return nil, fmt.Errorf("%w: type %d is not AUDIT_SECCOMP", ErrMalformed, typ)
	}
	var r Seccomp
	if err := DecodeSeccomp(data, &r); err != nil {
		return nil, err
	}
	return p.Event(&r), nil
}

// Event turns a decoded record into a SeccompEvent: it names the syscall
// and decodes comm and exe.
func (p *Parser) Event(r *Seccomp) *SeccompEvent {
	sc := p.syscall(r.AuditArch, r.Nr)
	arch, nr := sc.arch, sc.nr
	return &SeccompEvent{
		Serial:    r.Serial,
		Time:      r.Time,
		Ses:       r.Ses,
		PID:       r.PID,
		UID:       r.UID,
		Arch:      arch,
		AuditArch: r.AuditArch,
		Number:    nr,
		Name:      sc.name,
		Compat:    r.Compat,
		Comm:      p.text(r.Comm),
		Exe:       p.text(r.Exe),
		IP:        r.IP,
		Code:      r.Code,
	}
}

// syscall resolves a record's arch and number, cached per pair.
func (p *Parser) syscall(auditArch uint32, rawNr int) resolved {
	k := nameKey{auditArch, rawNr}
	if r, ok := p.names[k]; ok {
		return r
	}
	arch, nr, ok := scmp.FromAudit(auditArch, rawNr)
	r := resolved{arch: arch, nr: nr, name: strconv.Itoa(nr)}
	if ok {
		r.name = scmp.NameOrNumber(arch, nr)
	}
	if len(p.names) >= maxCachedStrings {
		clear(p.names)
	}
	p.names[k] = r
	return r
}

// text decodes an untrusted audit string: quoted text as is, otherwise
// hex (the kernel hex-encodes strings with spaces, quotes or control
// characters); "(null)" and "?" mean the kernel had no value.
func (p *Parser) text(f Text) string {
	b := f.Raw
	if !f.Quoted {
		if string(b) == "(null)" || string(b) == "?" || len(b) == 0 {
			return ""
		}
		if len(b)%2 == 0 {
			p.scratch = p.scratch[:0]
			ok := true
			for i := 0; i < len(b); i += 2 {
				hi, ok1 := unhex(b[i])
				lo, ok2 := unhex(b[i+1])
				if !ok1 || !ok2 {
					ok = false
					break
				}
				p.scratch = append(p.scratch, hi<<4|lo)
			}
			if ok {
				b = p.scratch
			}
		}
	}
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	if len(p.strs) >= maxCachedStrings {
		clear(p.strs)
	}
	s := string(b)
	p.strs[s] = s
	return s
}
