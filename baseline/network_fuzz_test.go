package baseline

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzNetworkEntry drives one destination pattern through the parser,
// the writer and the matcher: no panic; an accepted pattern formats back
// to itself, and a matcher built from it answers for any destination.
func FuzzNetworkEntry(f *testing.F) {
	for _, s := range []string{"api.openai.com:443", "127.0.0.1:{port}", "loopback:*", "[::1]:8080", "*.github.com:443", "unix:/run/docker.sock",
		"unix:@x", "unix:{tmp}/a.sock", "metadata:80", "x", "::1:80", "public:{port}", "a..b:1", "[fe80::1%eth0]:1", "api.openai.com"} {
		f.Add(s, "connect", "api.openai.com=1.2.3.4:443", "/usr/bin/curl")
	}
	f.Fuzz(func(t *testing.T, pattern, op, probe, by string) {
		if !utf8.ValidString(pattern) || !utf8.ValidString(by) {
			return // only a Document built in code holds one; Format writes U+FFFD
		}
		doc := &Document{Version: FormatVersion, HasNetwork: true, Network: []NetworkEntry{{Pattern: pattern, Op: NetConnect, By: by, Reason: "r"}}}
		if o, ok := ParseNetOp(op); ok {
			doc.Network[0].Op = o
		}
		out := doc.Format()
		back, errs := parseDocument("f.yaml", out)
		if hasErrors(errs) {
			_, perr := compileNetPattern(pattern, doc.Network[0].Op)
			if perr == nil && (by == "" || strings.HasPrefix(by, "/") && !strings.ContainsAny(by, "*?\x00")) && !strings.ContainsFunc(by, isControl) {
				t.Fatalf("pattern %q by %q: valid, but its file does not parse: %v\n%s", pattern, by, errs, out)
			}
			return
		}
		if len(back.Network) != 1 || back.Network[0].Pattern != pattern || back.Network[0].By != by {
			t.Fatalf("pattern %q came back as %+v:\n%s", pattern, back.Network, out)
		}
		if again := back.Format(); string(again) != string(out) {
			t.Fatalf("format is not canonical:\n%s\n---\n%s", out, again)
		}
		m := newNetworkMatcher(back.Network, FileContext{Tmp: "/tmp"})
		if d, err := ParseDestination(probe); err == nil {
			m.Allows(back.Network[0].Op, d, by)
			m.Explain(back.Network[0].Op, d, "")
			// An observed destination written as an entry allows itself.
			s := ObservedDestination{Op: back.Network[0].Op, Dest: d, Count: 1}
			if es := GeneraliseNetwork(FileContext{}, []ObservedDestination{s}); len(es) == 1 && !newNetworkMatcher(es, symbolic).Allows(s.Op, d, "") {
				t.Fatalf("%s %s not allowed by its own entry %+v", s.Op, probe, es[0])
			}
		}
	})
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// FuzzParseDestination: a destination an observation file holds reads
// back to the same key, and never panics.
func FuzzParseDestination(f *testing.F) {
	for _, s := range []string{"api.openai.com=104.18.7.192:443", "127.0.0.1:80", "[::1]:8080", "unix:/run/x.sock", "unix:@a", "unix:{tmp}/a",
		"api.openai.com", "[::ffff:1.2.3.4]:1", "a=b=c:1", "[fe80::1%eth0]:1", "x:", ":1", "[]:1", "a.b:65536"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDestination(s)
		if err != nil {
			return
		}
		back, err := ParseDestination(d.Key())
		if err != nil || back != d {
			t.Fatalf("%q read as %+v, its key %q as %+v (%v)", s, d, d.Key(), back, err)
		}
	})
}
