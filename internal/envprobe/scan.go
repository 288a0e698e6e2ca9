package envprobe

import (
	"bytes"
	"errors"
	"io"
	"strings"
)

// scanChunk is how much of a section is held at once: node's .rodata is
// ~47 MB, and its version string sits in the first MB.
const scanChunk = 1 << 20

// eachMatch calls fn for each occurrence of needle in the first size bytes
// of r, in order, with a window of up to before bytes ahead of it and
// after bytes behind it (fewer at the ends); at is the needle's index in
// the window. fn returns false to stop. Memory stays bounded by chunk.
func eachMatch(r io.ReaderAt, size int64, needle []byte, before, after int, fn func(window []byte, at int) bool) error {
	return eachMatchChunked(r, size, needle, before, after, scanChunk, fn)
}

func eachMatchChunked(r io.ReaderAt, size int64, needle []byte, before, after, chunk int, fn func(window []byte, at int) bool) error {
	if len(needle) == 0 || size <= 0 {
		return nil
	}
	buf := make([]byte, before+chunk+len(needle)+after)
	for off := int64(0); off < size; off += int64(chunk) {
		start := max(0, off-int64(before))
		end := min(size, off+int64(chunk+len(needle)+after))
		n, err := r.ReadAt(buf[:end-start], start)
		if n < int(end-start) {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		data := buf[:n]
		lo := int(off - start) // matches starting before lo belong to the previous chunk
		for i := lo; i < len(data); {
			j := bytes.Index(data[i:], needle)
			if j < 0 {
				break
			}
			p := i + j
			if p >= lo+chunk {
				break
			}
			ws, we := max(0, p-before), min(len(data), p+len(needle)+after)
			if !fn(data[ws:we], p-ws) {
				return nil
			}
			i = p + 1
		}
	}
	return nil
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// digits is the length of the run of decimal digits at the start of b,
// at most limit.
func digits(b []byte, limit int) int {
	n := 0
	for n < len(b) && n < limit && isDigit(b[n]) {
		n++
	}
	if n < len(b) && isDigit(b[n]) {
		return 0 // longer than any version component
	}
	return n
}

// dottedVersion reads "N.N" up to "N.N.N" (parts components at least
// min, at most max) at the start of b and returns its length, or 0.
func dottedVersion(b []byte, minParts, maxParts int) int {
	n, parts := 0, 0
	for parts < maxParts {
		d := digits(b[n:], 5)
		if d == 0 {
			break
		}
		n += d
		parts++
		if parts == maxParts || n+1 >= len(b) || b[n] != '.' || !isDigit(b[n+1]) {
			break
		}
		n++
	}
	if parts < minParts {
		return 0
	}
	return n
}

// pythonVersionAt reads a PY_VERSION at window[at:], which starts with
// the prefix the executable's name gives ("3.11." for python3.11, "3."
// for python3, then the minor is read too): "3.11.7", "3.13.0rc1",
// "3.12.0a7+", ending at a NUL. The rank tells how sure it is: 0 for a
// string of its own (a NUL before it), 1 for the tail of a longer one
// that the linker merged it into ("/root/.pyenv/versions/3.11.7");
// ok is false when it is no version.
func pythonVersionAt(window []byte, at int, prefix string) (version string, rank int, ok bool) {
	if at > 0 && (isDigit(window[at-1]) || window[at-1] == '.') {
		return "", 0, false
	}
	b := window[at:]
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return "", 0, false
	}
	n := len(prefix)
	if strings.Count(prefix, ".") < 2 { // the minor too
		d := digits(b[n:], 3)
		if d == 0 || n+d >= len(b) || b[n+d] != '.' {
			return "", 0, false
		}
		n += d + 1
	}
	d := digits(b[n:], 3)
	if d == 0 {
		return "", 0, false
	}
	n += d
	// Release level: a1, b2, rc1; a development build adds "+".
	for _, level := range []string{"rc", "a", "b"} {
		if bytes.HasPrefix(b[n:], []byte(level)) {
			if s := digits(b[n+len(level):], 3); s > 0 {
				n += len(level) + s
			}
			break
		}
	}
	if n < len(b) && b[n] == '+' {
		n++
	}
	if n >= len(b) || b[n] != 0 {
		return "", 0, false
	}
	rank = 1
	if at > 0 && window[at-1] == 0 {
		rank = 0
	}
	return string(b[:n]), rank, true
}

// pythonVersionHex formats PY_VERSION_HEX (Py_Version): 0x030B07F0 is
// "3.11.7", 0x030D00C1 "3.13.0rc1".
func pythonVersionHex(v uint64) (string, bool) {
	major, minor, micro := v>>24&0xff, v>>16&0xff, v>>8&0xff
	level, serial := v>>4&0xf, v&0xf
	if v>>32 != 0 || major < 2 || major > 9 {
		return "", false
	}
	s := itoa(major) + "." + itoa(minor) + "." + itoa(micro)
	switch level {
	case 0xa:
		s += "a" + itoa(serial)
	case 0xb:
		s += "b" + itoa(serial)
	case 0xc:
		s += "rc" + itoa(serial)
	case 0xf:
	default:
		return "", false
	}
	return s, true
}

func itoa(v uint64) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

// Node's release URL ("https://nodejs.org/download/release/v20.20.2/")
// and its inspector's user agent ("node.js/v20.20.2"), both in .rodata.
var nodeNeedles = []struct {
	needle string
	end    byte
}{
	{"nodejs.org/download/release/v", '/'},
	{"node.js/v", 0},
}

// nodeVersionAt reads "X.Y.Z" (with a "-rc.1" style suffix) right after
// the needle at window[at:], ending with end.
func nodeVersionAt(window []byte, at, needleLen int, end byte) (string, bool) {
	b := window[at+needleLen:]
	n := dottedVersion(b, 3, 3)
	if n == 0 {
		return "", false
	}
	if n < len(b) && b[n] == '-' {
		m := n + 1
		for m < len(b) && m-n < 24 && (isDigit(b[m]) || b[m] == '.' || 'a' <= b[m] && b[m] <= 'z') {
			m++
		}
		if m > n+1 {
			n = m
		}
	}
	if n >= len(b) || b[n] != end {
		return "", false
	}
	return string(b[:n]), true
}

// glibcNeedle precedes the version in libc.so.6's banner: "GNU C Library
// (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36."
const glibcNeedle = "release version "

// glibcVersionAt reads "2.36" (or "2.39.9000") after the needle.
func glibcVersionAt(window []byte, at int) (string, bool) {
	b := window[at+len(glibcNeedle):]
	n := dottedVersion(b, 2, 3)
	if n == 0 || n < len(b) && isDigit(b[n]) {
		return "", false
	}
	return string(b[:n]), true
}

// muslVersionIn finds musl's version in its .rodata: the one string of
// its own that is a bare "X.Y.Z" ("1.2.3"; "127.0.0.1" has four parts).
// Several different ones make it unknown.
func muslVersionIn(rodata []byte) string {
	found := ""
	for i := 0; i < len(rodata); {
		j := bytes.IndexByte(rodata[i:], 0)
		if j < 0 {
			break
		}
		s := rodata[i : i+j]
		i += j + 1
		if len(s) < 5 || len(s) > 17 || !isDigit(s[0]) {
			continue
		}
		if n := dottedVersion(s, 3, 3); n == len(s) {
			if found != "" && found != string(s) {
				return ""
			}
			found = string(s)
		}
	}
	return found
}
