package envprobe

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func FuzzOSRelease(f *testing.F) {
	for _, seed := range []string{
		"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_ID=\"12\"\nID=debian\n",
		"ID='fedora'\nVERSION_ID='40'\n",
		"ID=\"my\\\"os\"\nVERSION_ID=\"1\\\\2\"\n",
		"# c\nID=arch\r\n",
		"ID=\"unterminated\nVERSION_ID=\\",
		"ID=\xff\xfe\nVERSION_ID=\x00\x01",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := OSRelease(data)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 %q", got)
		}
		fields := strings.Split(got, " ")
		if len(fields) > 2 || fields[0] == "" || (len(fields) == 2 && fields[1] == "") {
			t.Fatalf("%q is not \"ID\" or \"ID VERSION_ID\"", got)
		}
		for _, field := range fields {
			if len(field) > maxOSField+utf8.UTFMax {
				t.Fatalf("field of %d bytes in %q", len(field), got)
			}
			for _, r := range field {
				if unicode.IsSpace(r) || !unicode.IsPrint(r) {
					t.Fatalf("%q holds %U", got, r)
				}
			}
		}
	})
}

// naiveMatches is eachMatch on the whole buffer at once.
func naiveMatches(data, needle []byte, before, after int) []string {
	var out []string
	for i := 0; len(needle) > 0 && i <= len(data); {
		j := bytes.Index(data[i:], needle)
		if j < 0 {
			break
		}
		p := i + j
		ws, we := max(0, p-before), min(len(data), p+len(needle)+after)
		out = append(out, string(data[ws:we])+"@"+string(rune('0'+p-ws)))
		i = p + 1
	}
	return out
}

// FuzzEachMatch: reading in chunks finds what one pass over the whole
// section finds, with the same windows, wherever the chunks end.
func FuzzEachMatch(f *testing.F) {
	f.Add([]byte("aaaaaaa"), []byte("aa"), uint8(1), uint8(2), uint8(3))
	f.Add([]byte("x\x003.11.2\x00y3.11.7\x00"), []byte("3.11."), uint8(1), uint8(16), uint8(4))
	f.Add([]byte("release/v20.20.2/"), []byte("release/v"), uint8(0), uint8(40), uint8(1))
	f.Fuzz(func(t *testing.T, data, needle []byte, before, after, chunk uint8) {
		b, a, c := int(before%8), int(after%32), int(chunk%16)+1
		var got []string
		r := bytes.NewReader(data)
		err := eachMatchChunked(r, int64(len(data)), needle, b, a, c, func(w []byte, at int) bool {
			got = append(got, string(w)+"@"+string(rune('0'+at)))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		want := naiveMatches(data, needle, b, a)
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("chunk %d: got %q, want %q", c, got, want)
		}
	})
}

var (
	pyVersionRE   = regexp.MustCompile(`^[0-9]\.[0-9]{1,3}\.[0-9]{1,3}((a|b|rc)[0-9]{1,3})?\+?$`)
	nodeVersionRE = regexp.MustCompile(`^[0-9]{1,5}\.[0-9]{1,5}\.[0-9]{1,5}(-[0-9a-z.]+)?$`)
	libcVersionRE = regexp.MustCompile(`^[0-9]{1,5}\.[0-9]{1,5}(\.[0-9]{1,5})?$`)
)

// FuzzVersionScanners feeds the same bytes, as a section's contents, to
// every version reader: none panics, and what one returns is a version
// of its form that the data holds.
func FuzzVersionScanners(f *testing.F) {
	for _, seed := range []string{
		"pymalloc\x00pymalloc_debug\x003.11.2\x00strict\x00",      // Debian's python3.11
		"WITH_NEXT_FRAMEWORK\x00/root/.pyenv/versions/3.11.7\x00", // pyenv's libpython
		"\x003.13.0rc1\x00\x003.12.0a7+\x00",
		"Iron\x00https://nodejs.org/download/release/v20.20.2/node-v20.20.2.tar.gz\x00",
		"/json\x00node.js/v20.20.2\x00(delegate_) != nullptr",
		"https://nodejs.org/download/release/v22.0.0-rc.1/",
		"GNU C Library (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36.\n",
		"release version 2.39.9000.",
		"/proc/self/fd/\x001.2.3\x00Unsupported request %d\x00127.0.0.1\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(what, v string, re *regexp.Regexp) {
			if v == "" {
				return
			}
			if !re.MatchString(v) || !bytes.Contains(data, []byte(v)) {
				t.Fatalf("%s: %q from %q", what, v, data)
			}
		}
		for _, prefix := range []string{"3.11.", "3.", "2.7."} {
			_ = eachMatch(bytes.NewReader(data), int64(len(data)), []byte(prefix), 1, 16, func(w []byte, at int) bool {
				v, rank, ok := pythonVersionAt(w, at, prefix)
				if ok {
					check("python", v, pyVersionRE)
					if !strings.HasPrefix(v, prefix) || rank < 0 || rank > 1 || !bytes.Contains(data, []byte(v+"\x00")) {
						t.Fatalf("python %q rank %d for prefix %q", v, rank, prefix)
					}
				}
				return true
			})
		}
		for _, n := range nodeNeedles {
			_ = eachMatch(bytes.NewReader(data), int64(len(data)), []byte(n.needle), 0, 40, func(w []byte, at int) bool {
				if v, ok := nodeVersionAt(w, at, len(n.needle), n.end); ok {
					check("node", v, nodeVersionRE)
				}
				return true
			})
		}
		_ = eachMatch(bytes.NewReader(data), int64(len(data)), []byte(glibcNeedle), 0, 16, func(w []byte, at int) bool {
			if v, ok := glibcVersionAt(w, at); ok {
				check("glibc", v, libcVersionRE)
			}
			return true
		})
		if v := muslVersionIn(data); v != "" {
			check("musl", v, libcVersionRE)
			if !bytes.Contains(data, []byte("\x00"+v+"\x00")) && !bytes.HasPrefix(data, []byte(v+"\x00")) {
				t.Fatalf("musl %q is not a string of its own in %q", v, data)
			}
		}
		if len(data) >= 8 {
			if v, ok := pythonVersionHex(binary.LittleEndian.Uint64(data)); ok && !pyVersionRE.MatchString(v) {
				t.Fatalf("Py_Version %#x: %q", binary.LittleEndian.Uint64(data), v)
			}
		}
	})
}

// TestVersionReaders pins what each reader returns on the strings found
// in this machine's binaries, and what it refuses.
func TestVersionReaders(t *testing.T) {
	py := func(data, prefix string) string {
		best, bestRank := "", 2
		_ = eachMatch(strings.NewReader(data), int64(len(data)), []byte(prefix), 1, 16, func(w []byte, at int) bool {
			if v, rank, ok := pythonVersionAt(w, at, prefix); ok && rank < bestRank {
				best, bestRank = v, rank
			}
			return true
		})
		return best
	}
	for _, tc := range []struct{ data, prefix, want string }{
		{"pymalloc_debug\x003.11.2\x00strict", "3.11.", "3.11.2"},
		{"FRAMEWORK\x00/root/.pyenv/versions/3.11.7\x00EXEC", "3.11.", "3.11.7"},
		{"/opt/py-3.11.9\x00x\x003.11.7\x00", "3.11.", "3.11.7"}, // its own string beats a tail
		{"\x003.13.0rc1\x00", "3.13.", "3.13.0rc1"},
		{"\x003.12.0a7+\x00", "3.", "3.12.0a7+"},
		{"\x003.11.7 (main, Dec)\x00", "3.11.", ""},
		{"\x0013.11.7\x00", "3.11.", ""},
		{"\x003.11.x\x00", "3.11.", ""},
		{"\x003.11.7", "3.11.", ""}, // no NUL: cut off
	} {
		if got := py(tc.data, tc.prefix); got != tc.want {
			t.Errorf("python %q (%s) = %q, want %q", tc.data, tc.prefix, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    uint64
		want string
	}{{0x030B07F0, "3.11.7"}, {0x030D00C1, "3.13.0rc1"}, {0x030C00A7, "3.12.0a7"}, {0x030E00B2, "3.14.0b2"}, {0x030B0700, ""}, {1 << 40, ""}} {
		if got, _ := pythonVersionHex(tc.v); got != tc.want {
			t.Errorf("pythonVersionHex(%#x) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		data string
		want string
	}{
		{"https://nodejs.org/download/release/v20.20.2/node", "20.20.2"},
		{"https://nodejs.org/download/release/v22.0.0-rc.1/", "22.0.0-rc.1"},
		{"nodejs.org/download/release/v20.20/", ""},
		{"nodejs.org/download/release/v20.20.2", ""},
	} {
		n := nodeNeedles[0]
		got := ""
		_ = eachMatch(strings.NewReader(tc.data), int64(len(tc.data)), []byte(n.needle), 0, 40, func(w []byte, at int) bool {
			got, _ = nodeVersionAt(w, at, len(n.needle), n.end)
			return false
		})
		if got != tc.want {
			t.Errorf("node %q = %q, want %q", tc.data, got, tc.want)
		}
	}
	for _, tc := range []struct{ data, want string }{
		{"\x001.2.3\x00127.0.0.1\x00", "1.2.3"},
		{"\x001.2.3\x001.2.3\x00", "1.2.3"},
		{"\x001.2.3\x001.2.4\x00", ""},
		{"\x001.2\x00", ""},
	} {
		if got := muslVersionIn([]byte(tc.data)); got != tc.want {
			t.Errorf("musl %q = %q, want %q", tc.data, got, tc.want)
		}
	}
}
