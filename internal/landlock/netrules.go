package landlock

import (
	"sort"
	"strconv"
	"strings"
)

// NetEntry is one connect or bind line of a baseline's network section.
// Other calls (listen, send, resolve) have no Landlock right: leave them
// out.
type NetEntry struct {
	Access NetAccess // ConnectTCP or BindTCP
	// Pattern as the section writes it, already validated:
	// "127.0.0.1:8080", "api.openai.com:443", "[::1]:80", "loopback:*",
	// "127.0.0.1:{port}", "unix:/run/x.sock".
	Pattern string
	By      string // the entry's program; "" for every program
}

func (e NetEntry) String() string {
	s := e.Access.String() + " " + e.Pattern
	if e.By != "" {
		s += " by " + e.By
	}
	return s
}

// NetRules is what a ruleset can enforce of a network section: the TCP
// rights it handles and the ports that keep them.
type NetRules struct {
	// Handled is refused on every TCP port outside Ports.
	Handled NetAccess
	// Ports, by port, each with the handled rights it keeps.
	Ports []PortRule
	// Widened: entries Landlock enforces more loosely than check.
	Widened []NetNote
	// Unhandled: entries that leave their right unhandled (Handled
	// lacks it), so that Landlock refuses none of those calls.
	Unhandled []NetNote
}

// NetNote is an entry Landlock cannot enforce as written, and why.
type NetNote struct {
	Entry  NetEntry
	Reason string
}

// Reasons of a NetNote.
const (
	// Widened: a rule per port is all Landlock has.
	WidePort        = "Landlock allows the port to every address"
	WidePortProgram = "Landlock allows the port to every address and every program"
	// Unhandled.
	UnhandledAnyPort = "any port: a rule per port cannot say it"
	UnhandledRunPort = "a port chosen at run time: unknown when the ruleset is built"
	UnhandledPattern = "no port sysgate can read in the pattern"
)

// NetRulesFromEntries turns a network section's connect and bind entries
// into TCP port rules, without touching the kernel. Entries is the whole
// section: a right no entry mentions is handled with no port, so every
// TCP call of that kind is refused, as check would report every one.
//
// Landlock rules are per port for the whole domain, so enforce is wider
// than check, which stays the gate:
//   - an entry allows its port to every address, "api.openai.com:443"
//     any host on 443 (WidePort);
//   - an entry scoped with by: allows it to every program of the run
//     (WidePortProgram).
//
// A right is left unhandled (Unhandled says by which entry) when one of
// its entries has port "*" or "{port}": allowing every port is the same
// as not handling the right, and a run-time port is not known when the
// ruleset is built. Those calls are left to the observer, which reports
// them, or on the notify backend to the listener, which refuses them.
//
// Not covered at all: UDP (a connect or send of a datagram socket) and
// Unix sockets. Their entries ("unix:/run/x.sock") add no rule, and no
// such call is refused by Landlock.
func NetRulesFromEntries(entries []NetEntry) NetRules {
	var out NetRules
	handled := ConnectTCP | BindTCP
	ports := map[uint16]NetAccess{}
	var widened []NetNote
	for _, e := range entries {
		for _, right := range []NetAccess{ConnectTCP, BindTCP} {
			if e.Access&right == 0 {
				continue
			}
			one := e
			one.Access = right
			port, reason, tcp := entryPort(e.Pattern)
			switch {
			case !tcp:
			case reason != "":
				handled &^= right
				out.Unhandled = append(out.Unhandled, NetNote{Entry: one, Reason: reason})
			default:
				ports[port] |= right
				wide := WidePort
				if e.By != "" {
					wide = WidePortProgram
				}
				widened = append(widened, NetNote{Entry: one, Reason: wide})
			}
		}
	}
	out.Handled = handled
	for _, w := range widened {
		if w.Entry.Access&handled != 0 {
			out.Widened = append(out.Widened, w)
		}
	}
	for port, access := range ports {
		if access&handled != 0 {
			out.Ports = append(out.Ports, PortRule{Port: port, Access: access & handled})
		}
	}
	sort.Slice(out.Ports, func(i, j int) bool { return out.Ports[i].Port < out.Ports[j].Port })
	return out
}

// entryPort reads the port of a pattern: tcp is false for a Unix socket;
// reason is why there is no fixed port ("" when there is).
func entryPort(pattern string) (port uint16, reason string, tcp bool) {
	if strings.HasPrefix(pattern, "unix:") {
		return 0, "", false
	}
	i := strings.LastIndexByte(pattern, ':')
	if i < 0 {
		return 0, UnhandledPattern, true
	}
	switch p := pattern[i+1:]; p {
	case "*":
		return 0, UnhandledAnyPort, true
	case "{port}":
		return 0, UnhandledRunPort, true
	default:
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return 0, UnhandledPattern, true
		}
		return uint16(n), "", true
	}
}
