package landlock

import (
	"reflect"
	"testing"
)

func TestNetRulesFromEntries(t *testing.T) {
	c := func(p string) NetEntry { return NetEntry{Access: ConnectTCP, Pattern: p} }
	b := func(p string) NetEntry { return NetEntry{Access: BindTCP, Pattern: p} }
	for _, tc := range []struct {
		name      string
		entries   []NetEntry
		handled   NetAccess
		ports     []PortRule
		widened   []string // "entry: reason"
		unhandled []string
	}{{
		name:    "an empty section refuses every TCP connect and bind",
		handled: ConnectTCP | BindTCP,
	}, {
		name:    "ports merged and sorted, v6 and names by their port",
		entries: []NetEntry{c("api.openai.com:443"), c("[::1]:8080"), b("127.0.0.1:8080"), c("10.0.0.1:443"), c("loopback:22")},
		handled: ConnectTCP | BindTCP,
		ports:   []PortRule{{22, ConnectTCP}, {443, ConnectTCP}, {8080, ConnectTCP | BindTCP}},
		widened: []string{
			"connect api.openai.com:443: " + WidePort,
			"connect [::1]:8080: " + WidePort,
			"bind 127.0.0.1:8080: " + WidePort,
			"connect 10.0.0.1:443: " + WidePort,
			"connect loopback:22: " + WidePort,
		},
	}, {
		name:    "by: widens to every program",
		entries: []NetEntry{{Access: ConnectTCP, Pattern: "api.github.com:443", By: "/usr/bin/git"}},
		handled: ConnectTCP | BindTCP,
		ports:   []PortRule{{443, ConnectTCP}},
		widened: []string{"connect api.github.com:443 by /usr/bin/git: " + WidePortProgram},
	}, {
		name:      "any port leaves connect unhandled, and drops its ports and notes",
		entries:   []NetEntry{c("127.0.0.1:80"), c("loopback:*"), b("127.0.0.1:9000")},
		handled:   BindTCP,
		ports:     []PortRule{{9000, BindTCP}},
		widened:   []string{"bind 127.0.0.1:9000: " + WidePort},
		unhandled: []string{"connect loopback:*: " + UnhandledAnyPort},
	}, {
		name:      "a run-time port leaves bind unhandled; connect keeps its port",
		entries:   []NetEntry{b("127.0.0.1:{port}"), c("127.0.0.1:80"), b("127.0.0.1:80")},
		handled:   ConnectTCP,
		ports:     []PortRule{{80, ConnectTCP}},
		widened:   []string{"connect 127.0.0.1:80: " + WidePort},
		unhandled: []string{"bind 127.0.0.1:{port}: " + UnhandledRunPort},
	}, {
		name:    "unix sockets add nothing and take nothing away",
		entries: []NetEntry{c("unix:/run/x.sock"), b("unix:@name:*"), c("127.0.0.1:5432")},
		handled: ConnectTCP | BindTCP,
		ports:   []PortRule{{5432, ConnectTCP}},
		widened: []string{"connect 127.0.0.1:5432: " + WidePort},
	}, {
		name:      "a pattern without a readable port is never narrower: unhandled",
		entries:   []NetEntry{c("localhost"), b("127.0.0.1:99999"), c("127.0.0.1:1")},
		handled:   0,
		unhandled: []string{"connect localhost: " + UnhandledPattern, "bind 127.0.0.1:99999: " + UnhandledPattern},
	}, {
		name:    "an entry with both rights is one note per right",
		entries: []NetEntry{{Access: ConnectTCP | BindTCP, Pattern: "127.0.0.1:7"}},
		handled: ConnectTCP | BindTCP,
		ports:   []PortRule{{7, ConnectTCP | BindTCP}},
		widened: []string{"connect 127.0.0.1:7: " + WidePort, "bind 127.0.0.1:7: " + WidePort},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := NetRulesFromEntries(tc.entries)
			if got.Handled != tc.handled {
				t.Errorf("handled %v, want %v", got.Handled, tc.handled)
			}
			if !reflect.DeepEqual(got.Ports, tc.ports) {
				t.Errorf("ports\n got %v\nwant %v", got.Ports, tc.ports)
			}
			if w := notes(got.Widened); !reflect.DeepEqual(w, tc.widened) {
				t.Errorf("widened\n got %q\nwant %q", w, tc.widened)
			}
			if u := notes(got.Unhandled); !reflect.DeepEqual(u, tc.unhandled) {
				t.Errorf("unhandled\n got %q\nwant %q", u, tc.unhandled)
			}
		})
	}
}

func notes(ns []NetNote) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Entry.String()+": "+n.Reason)
	}
	return out
}
