package touch

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// The field reader below reads a record's key=value pairs exactly as
// go-libaudit's auparse did before it (its kvRegex, trimming, dropped
// values, msg= nesting, hex decoding), so that Events stay the same for
// every input, kernel-made or not (the differential tests compare the
// two), at a fraction of the cost: no regexp, no map, no copies.

// scanFields calls f with each key=value pair in msg, in order, as
// auparse's kvRegex `([a-z0-9_-]+)=((?:[^"'\s]+)|'(?:\\'|[^'])*'|"(?:\\"|[^"])*")`
// finds them: orig is the value as matched, quotes included. A pair
// named msg is not reported; the pairs inside its value are.
func scanFields(msg []byte, f func(key, orig []byte)) {
	lastDQ := bytes.LastIndexByte(msg, '"')
	lastSQ := bytes.LastIndexByte(msg, '\'')
	start, i := 0, 0
	for {
		e := bytes.IndexByte(msg[i:], '=')
		if e < 0 {
			return
		}
		e += i
		k := e
		for k > start && isKeyChar(msg[k-1]) {
			k--
		}
		end := -1
		if k < e {
			end = valueEnd(msg, e+1, lastDQ, lastSQ)
		}
		if end < 0 {
			i = e + 1
			continue
		}
		key, orig := msg[k:e], msg[e+1:end]
		if string(key) == "msg" {
			if v := trimValue(orig); !dropped(v) {
				scanFields(v, f)
			}
		} else {
			f(key, orig)
		}
		start, i = end, end
	}
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// isSpace is the regexp class \s.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// valueEnd returns the end of the value starting at p, or -1 when none
// matches there. In a quoted value, a backslash before the quote escapes
// it only if a later quote can still close the value: the regexp's
// first-alternative preference, worked out.
func valueEnd(msg []byte, p, lastDQ, lastSQ int) int {
	if p >= len(msg) {
		return -1
	}
	q := msg[p]
	last := lastDQ
	switch {
	case q == '\'':
		last = lastSQ
	case q == '"':
	case isSpace(q):
		return -1
	default:
		j := p
		for j < len(msg) && msg[j] != '"' && msg[j] != '\'' && !isSpace(msg[j]) {
			j++
		}
		return j
	}
	for j := p + 1; j < len(msg); j++ {
		switch {
		case msg[j] == '\\' && j+1 < len(msg) && msg[j+1] == q && last > j+1:
			j++
		case msg[j] == q:
			return j + 1
		}
	}
	return -1
}

// trimValue strips quotes and spaces from both ends, as auparse does.
func trimValue(orig []byte) []byte {
	i, j := 0, len(orig)
	for i < j && isTrimmed(orig[i]) {
		i++
	}
	for j > i && isTrimmed(orig[j-1]) {
		j--
	}
	return orig[i:j]
}

func isTrimmed(c byte) bool { return c == '\'' || c == '"' || c == ' ' }

// dropped reports the values auparse discards as if the field were absent.
func dropped(v []byte) bool {
	switch string(v) {
	case "", "?", "?,", "(null)":
		return true
	}
	return false
}

// hexText decodes a field auparse hex-decodes (cwd, exe, name): orig,
// quotes included, must be upper-case hex of even length, else the
// trimmed value stands. NULs become spaces (auparse splits on them and
// joins with a space).
func hexText(orig, val []byte, scratch []byte) []byte {
	if len(orig)%2 != 0 {
		return val
	}
	out := scratch[:0]
	for i := 0; i < len(orig); i += 2 {
		hi, ok1 := upperHex(orig[i])
		lo, ok2 := upperHex(orig[i+1])
		if !ok1 || !ok2 {
			return val
		}
		c := hi<<4 | lo
		if c == 0 {
			c = ' '
		}
		out = append(out, c)
	}
	return out
}

func upperHex(c byte) (byte, bool) {
	if c >= 'a' {
		return 0, false
	}
	return unhexDigit(c)
}

// parseUint is strconv.ParseUint on bytes (same value and error on
// every input), without a string copy for short plain digits.
func parseUint(b []byte, base, bits int) (uint64, error) {
	if len(b) == 0 {
		return 0, errEmpty // an absent field: strconv's value, without its error's allocation
	}
	if len(b) <= 15 {
		var v uint64
		ok := true
		for _, c := range b {
			d, isHex := unhexDigit(c)
			if !isHex || int(d) >= base {
				ok = false
				break
			}
			v = v*uint64(base) + uint64(d)
		}
		// 15 digits of base 16 is 60 bits: no overflow before the check.
		if ok && (bits >= 64 || v < 1<<uint(bits)) {
			return v, nil
		}
	}
	return strconv.ParseUint(string(b), base, bits)
}

var errEmpty = errors.New("empty number")

// parseInt is strconv.ParseInt on bytes, with the same fast path.
func parseInt(b []byte, base, bits int) (int64, error) {
	if len(b) == 0 {
		return 0, errEmpty
	}
	if len(b) > 0 && len(b) <= 15 && b[0] != '-' && b[0] != '+' {
		if v, err := parseUint(b, base, 64); err == nil && v < 1<<uint(bits-1) {
			return int64(v), nil
		}
	}
	return strconv.ParseInt(string(b), base, bits)
}

// hexDigits maps a hex digit of either case to its value plus one.
var hexDigits = func() (t [256]byte) {
	for i, c := range "0123456789abcdef" {
		t[c] = byte(i) + 1
		t[strings.ToUpper(string(c))[0]] = byte(i) + 1
	}
	return t
}()

func unhexDigit(c byte) (byte, bool) {
	v := hexDigits[c]
	return v - 1, v != 0
}
