package harness

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/landlock"
)

// landlockNet is the TCP part of an enforce run's ruleset: the ports of
// the network section's connect and bind entries (landlock.NetRules-
// FromEntries), to every address and program, since a Landlock rule is
// per port. A connect or bind whose entries Landlock cannot express (port
// "*" or "{port}") is left unhandled, and so is everything on a kernel
// below ABI 4.
//
// It is applied on both backends. On the audit backend it is what
// refuses a connect outside the section; the rest is reported, not
// refused, and the weakened line says which. On the notify backend the
// listener already refuses every socket call outside the section: it
// performs the allowed ones itself, on a thread that holds no Landlock
// domain, so the ruleset changes nothing for them. What it adds there is
// a second lock on what the filter never shows the listener: a connect
// or bind submitted through io_uring passes no seccomp filter but does
// pass the LSM hooks Landlock sits on. Its ports are never narrower
// than the section, so it cannot refuse what the listener allows; no
// weakened line there.
func (p *runPlan) landlockNet(abi int) landlock.NetRules {
	if landlock.HandledNet(abi) == 0 {
		p.weakenNetwork(fmt.Sprintf("Landlock ABI %d has no TCP port rules (Linux 6.7 or later has them)", abi))
		return landlock.NetRules{}
	}
	nr := landlock.NetRulesFromEntries(landlockNetEntries(p.profile.NetworkEntries()))
	if p.resolver != nil && nr.Handled&landlock.ConnectTCP != 0 {
		// The run's forwarder, which a resolver reaches over TCP when an
		// answer is truncated: port 53 to every address, as Landlock has
		// it (a lookup elsewhere is still reported).
		nr.Ports = append(nr.Ports, landlock.PortRule{Port: 53, Access: landlock.ConnectTCP})
	}
	if !p.notify {
		p.weakened = append(p.weakened, netEnforceNote(nr))
	}
	return nr
}

// weakenNetwork says that enforce refuses no socket call, and why, on
// the audit backend (the notify backend's listener refuses them).
func (p *runPlan) weakenNetwork(why string) {
	if p.notify {
		return
	}
	p.weakened = append(p.weakened, "enforce refuses no socket call outside the network section ("+why+"): they are reported, not refused")
}

// landlockNetEntries picks the connect and bind entries: the calls
// Landlock has a right for.
func landlockNetEntries(entries []baseline.NetworkEntry) []landlock.NetEntry {
	var out []landlock.NetEntry
	for _, e := range entries {
		var a landlock.NetAccess
		switch e.Op {
		case baseline.NetConnect:
			a = landlock.ConnectTCP
		case baseline.NetBind:
			a = landlock.BindTCP
		default:
			continue
		}
		out = append(out, landlock.NetEntry{Access: a, Pattern: e.Pattern, By: e.By})
	}
	return out
}

// netEnforceNote says what Landlock refuses of a network section on the
// audit backend and what it leaves to the report.
func netEnforceNote(nr landlock.NetRules) string {
	var refused, unrefused []string
	for _, right := range []landlock.NetAccess{landlock.ConnectTCP, landlock.BindTCP} {
		if nr.Handled&right != 0 {
			refused = append(refused, right.String()+"s")
			continue
		}
		for _, n := range nr.Unhandled {
			if n.Entry.Access == right {
				unrefused = append(unrefused, fmt.Sprintf("TCP %ss (%s: %s)", right, n.Entry.Pattern, n.Reason))
				break
			}
		}
	}
	// Landlock has no right for a listen, a datagram or a Unix socket.
	unrefused = append(unrefused, "listens", "UDP", "Unix sockets")
	rest := strings.Join(unrefused[:len(unrefused)-1], ", ") + " and " + unrefused[len(unrefused)-1]
	if len(refused) == 0 {
		return "enforce refuses no socket call outside the network section (Landlock cannot express it): " + rest + " are reported, not refused"
	}
	return fmt.Sprintf("enforce refuses TCP %s outside the network section's ports, to any address and by any program (a Landlock rule is per port, not per address or program): %s are reported, not refused",
		strings.Join(refused, " and "), rest)
}
