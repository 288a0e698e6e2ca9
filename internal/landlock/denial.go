package landlock

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Audit record types of Landlock (Linux 6.15+).
const (
	AuditAccess = 1423 // AUDIT_LANDLOCK_ACCESS: one denied request
	AuditDomain = 1424 // AUDIT_LANDLOCK_DOMAIN: a domain's creator, or its end
)

// ErrMalformed is returned for a record the parsers cannot read.
var ErrMalformed = errors.New("malformed landlock audit record")

// Denial is one AUDIT_LANDLOCK_ACCESS record: which domain refused what.
// The record names no process: join it with the same event's SYSCALL
// record (same Serial, present when the task has an audit context) for
// the task's pid, or with the domain's DomainRecord for the pid that
// restricted itself (the agent's first process). Path is the kernel's
// resolved path (path=) or, for a removal or a new entry, the entry's
// name (name=); it is data the agent chose: escape it before printing.
// A TCP denial (net.connect_tcp, net.bind_tcp) has Addr and Port instead:
// the destination of a connect (daddr=, dest=), the local address of a
// bind (saddr=, src=); the kernel leaves out an unspecified address and
// port 0.
type Denial struct {
	Serial   uint64
	Domain   string   // hex id, shared with the DomainRecord
	Blockers []string // e.g. fs.read_file, fs.make_reg, fs.refer, net.connect_tcp
	Path     string
	Dev      string
	Ino      uint64
	Addr     netip.Addr
	Port     uint16
}

// DomainRecord is an AUDIT_LANDLOCK_DOMAIN record. Status "allocated"
// comes with the first logged denial of a domain and names the task that
// called landlock_restrict_self (PID, UID, Exe, Comm); "deallocated"
// comes when the domain ends, with the number of denials (logged or not).
type DomainRecord struct {
	Serial  uint64
	Domain  string
	Status  string
	Mode    string
	PID     int
	UID     uint32
	Exe     string
	Comm    string
	Denials uint64
}

// ParseAccess parses the text of an AUDIT_LANDLOCK_ACCESS record
// ("audit(SEC.MS:SERIAL): domain=... blockers=... path=..."). The error
// matches ErrMalformed.
func ParseAccess(data []byte) (Denial, error) {
	var d Denial
	err := parseRecord(data, &d.Serial, func(key string, val []byte, quoted bool) error {
		var err error
		switch key {
		case "domain":
			d.Domain, err = hexID(val)
		case "blockers":
			if len(val) == 0 {
				return errors.New("empty")
			}
			d.Blockers = strings.Split(string(val), ",")
		case "path", "name":
			d.Path, err = untrusted(val, quoted)
		case "dev":
			d.Dev, err = untrusted(val, quoted)
		case "ino":
			d.Ino, err = strconv.ParseUint(string(val), 10, 64)
		case "daddr", "saddr":
			d.Addr, err = netip.ParseAddr(string(val))
		case "dest", "src":
			var n uint64
			n, err = strconv.ParseUint(string(val), 10, 16)
			d.Port = uint16(n)
		}
		return err
	})
	if err == nil && (d.Domain == "" || len(d.Blockers) == 0) {
		err = fmt.Errorf("%w: no domain or blockers", ErrMalformed)
	}
	return d, err
}

// ParseDomain parses the text of an AUDIT_LANDLOCK_DOMAIN record. The
// error matches ErrMalformed.
func ParseDomain(data []byte) (DomainRecord, error) {
	var d DomainRecord
	err := parseRecord(data, &d.Serial, func(key string, val []byte, quoted bool) error {
		var err error
		var n uint64
		switch key {
		case "domain":
			d.Domain, err = hexID(val)
		case "status":
			d.Status = string(val)
		case "mode":
			d.Mode = string(val)
		case "pid":
			n, err = strconv.ParseUint(string(val), 10, 31)
			d.PID = int(n)
		case "uid":
			n, err = strconv.ParseUint(string(val), 10, 32)
			d.UID = uint32(n)
		case "exe":
			d.Exe, err = untrusted(val, quoted)
		case "comm":
			d.Comm, err = untrusted(val, quoted)
		case "denials":
			d.Denials, err = strconv.ParseUint(string(val), 10, 64)
		}
		return err
	})
	if err == nil && (d.Domain == "" || d.Status == "") {
		err = fmt.Errorf("%w: no domain or status", ErrMalformed)
	}
	return d, err
}

// parseRecord reads the "audit(...): " header into serial and calls field
// for each key=value pair; unknown keys are for field to ignore.
func parseRecord(data []byte, serial *uint64, field func(key string, val []byte, quoted bool) error) error {
	rest, ok := bytes.CutPrefix(data, []byte("audit("))
	stamp, rest, ok2 := bytes.Cut(rest, []byte("):"))
	_, num, ok3 := bytes.Cut(stamp, []byte(":"))
	if !ok || !ok2 || !ok3 {
		return fmt.Errorf("%w: no audit(...) header", ErrMalformed)
	}
	s, err := strconv.ParseUint(string(num), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: serial %q", ErrMalformed, num)
	}
	*serial = s
	for {
		rest = bytes.TrimLeft(rest, " \n\x00")
		if len(rest) == 0 {
			return nil
		}
		key, after, found := bytes.Cut(rest, []byte("="))
		if !found || len(key) == 0 || bytes.ContainsAny(key, " \"") {
			return fmt.Errorf("%w: bad field at %q", ErrMalformed, clip(rest))
		}
		var val []byte
		quoted := len(after) > 0 && after[0] == '"'
		if quoted {
			end := bytes.IndexByte(after[1:], '"')
			if end < 0 {
				return fmt.Errorf("%w: unterminated quote in %s", ErrMalformed, key)
			}
			val, rest = after[1:1+end], after[2+end:]
		} else {
			end := bytes.IndexByte(after, ' ')
			if end < 0 {
				end = len(after)
			}
			val, rest = after[:end], after[end:]
		}
		if err := field(string(key), val, quoted); err != nil {
			return fmt.Errorf("%w: %s=%q: %v", ErrMalformed, key, clip(val), err)
		}
	}
}

// untrusted decodes a string the kernel logged with
// audit_log_untrustedstring: quoted as is, or hex when it holds a quote,
// a space or a control character. "?" and "(null)" stand for none.
func untrusted(val []byte, quoted bool) (string, error) {
	if quoted || string(val) == "?" || string(val) == "(null)" || bytes.HasPrefix(val, []byte("<")) {
		return string(val), nil
	}
	b, err := hex.DecodeString(string(val))
	return string(b), err
}

// hexID checks a domain id (hex, as the kernel prints a u64).
func hexID(val []byte) (string, error) {
	if len(val) == 0 || len(val) > 16 {
		return "", errors.New("not a domain id")
	}
	if _, err := strconv.ParseUint(string(val), 16, 64); err != nil {
		return "", err
	}
	return string(val), nil
}

func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
