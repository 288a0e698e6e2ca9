package baseline

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/sysgate/sysgate/baseline/risk"
)

// GeneraliseNetwork turns the destinations a run reached into entries a
// reviewer can read:
//   - a destination with a name a lookup of the run gave is written by
//     name and port ("api.openai.com:443"): addresses change per CDN edge;
//   - a loopback address keeps its address, even when a lookup named it
//     (127.0.0.2 is not 127.0.0.1: the gap this section closes), and its
//     port, unless the run itself bound that port or was handed it by the
//     kernel (runPorts): then "{port}", since a server the run started
//     picks a new port each time. A loopback port is a service (a
//     resolver, a proxy, a database, a credentials helper), and services
//     forward: one the run did not start keeps its number however often
//     or rarely it was called;
//   - any other address without a name stays literal with its port: a
//     connection to a bare public IP is the direct-IP bypass of name
//     filters, so each one needs its own reviewed line;
//   - a unix socket keeps its path, with ctx's placeholders ("unix:
//     {tmp}/x.sock"); a name looked up is written as it was asked;
//   - a destination a shell or downloader reached gets an entry scoped to
//     that program (by:), so its risk is not hidden by an unscoped one;
//   - a high-risk entry (NetworkRisk) gets UnreviewedReason, so that
//     validate asks for a real one.
//
// The entries are sorted by call, pattern and program.
func GeneraliseNetwork(ctx FileContext, seen []ObservedDestination) []NetworkEntry {
	return generaliseNetwork(ctx, seen, runPortsOf(seen))
}

func generaliseNetwork(ctx FileContext, seen []ObservedDestination, own runPorts) []NetworkEntry {
	type scoped struct{ pattern, by string }
	byOp := map[NetOp]map[scoped]bool{}
	for _, s := range seen {
		pattern, ok := netPatternFor(ctx, s, own)
		if !ok {
			continue
		}
		by := ""
		if r, _ := risk.OfProgram(s.Program); s.Program != "" && (r == risk.Shell || r == risk.Downloader) {
			by = s.Program
		}
		if byOp[s.Op] == nil {
			byOp[s.Op] = map[scoped]bool{}
		}
		byOp[s.Op][scoped{pattern, by}] = true
	}
	var out []NetworkEntry
	for op, set := range byOp {
		for sc := range set {
			// A literal port beside "{port}" on the same address adds a
			// line and nothing else.
			if host, _, _ := splitHostPort(sc.pattern); !strings.HasSuffix(sc.pattern, ":{port}") && set[scoped{hostWithBrackets(sc.pattern, host) + ":{port}", sc.by}] {
				continue
			}
			e := NetworkEntry{Pattern: sc.pattern, Op: op, By: sc.by}
			if r, _, _ := NetworkRisk(e); r.Risky() {
				e.Reason = UnreviewedReason
			}
			out = append(out, e)
		}
	}
	sortNetworkEntries(out)
	return out
}

// hostWithBrackets gives an IPv6 host back its brackets.
func hostWithBrackets(pattern, host string) string {
	if strings.HasPrefix(pattern, "[") {
		return "[" + host + "]"
	}
	return host
}

// ephemeralPorts is where the kernel's default ip_local_port_range
// starts (32768-60999): a port there is one the kernel may hand out for
// port 0, new each run.
const ephemeralPorts = 32768

// runPorts are the loopback ports a run bound or listened on itself:
// the ones it named (a listen on notify names the port the kernel
// picked), and the addresses where it asked the kernel for one (port 0:
// the audit backend sees only the 0). An unspecified address (0.0.0.0,
// ::) stands for every loopback address.
type runPorts struct {
	named  map[netip.AddrPort]bool
	kernel map[netip.Addr]bool
}

func runPortsOf(seen []ObservedDestination) runPorts {
	r := runPorts{named: map[netip.AddrPort]bool{}, kernel: map[netip.Addr]bool{}}
	for _, s := range seen {
		a := s.Dest.Addr.Unmap()
		if (s.Op != NetListen && s.Op != NetBind) || s.Dest.Unix != "" || !a.IsValid() || !(a.IsLoopback() || a.IsUnspecified()) {
			continue
		}
		if a.IsUnspecified() {
			a = netip.IPv4Unspecified()
		}
		if s.Dest.Port == 0 {
			r.kernel[a] = true
			continue
		}
		r.named[netip.AddrPortFrom(a, s.Dest.Port)] = true
	}
	return r
}

// owns reports whether d is a port of the run's own: one it bound there
// (or on every address), or one in the kernel's range where it asked the
// kernel for a port.
func (r runPorts) owns(d Destination) bool {
	a, any4 := d.Addr.Unmap(), netip.IPv4Unspecified()
	if r.named[netip.AddrPortFrom(a, d.Port)] || r.named[netip.AddrPortFrom(any4, d.Port)] {
		return true
	}
	return d.Port >= ephemeralPorts && (r.kernel[a] || r.kernel[any4])
}

// netPatternFor writes one observed destination as a pattern; false when
// it cannot be written (a malformed name or path).
func netPatternFor(ctx FileContext, s ObservedDestination, own runPorts) (string, bool) {
	if s.Op < NetConnect || s.Op > NetResolve {
		return "", false
	}
	d := s.Dest
	var pattern string
	switch {
	case d.Unix != "" && strings.HasPrefix(d.Unix, "@"):
		pattern = "unix:@" + literalGlob("/" + d.Unix[1:])[1:]
	case d.Unix != "":
		pattern = "unix:" + literalGlob(ctx.Abstract(d.Unix))
	case s.Op == NetResolve:
		pattern = strings.TrimSuffix(strings.ToLower(d.Name), ".")
	case d.Name != "" && !(d.Addr.IsValid() && d.Addr.Unmap().IsLoopback()):
		pattern = strings.TrimSuffix(strings.ToLower(d.Name), ".") + ":" + strconv.Itoa(int(d.Port))
	case !d.Addr.IsValid():
		return "", false
	case d.Addr.Unmap().IsLoopback() && d.Port != 0 && (s.Op == NetConnect || s.Op == NetSend) && own.owns(d),
		d.Addr.Unmap().IsLoopback() && s.Op == NetListen && (d.Port == 0 || d.Port >= ephemeralPorts):
		// A listen on port 0 is one whose port the kernel picked (the
		// audit backend sees the bind's 0, notify the port itself).
		pattern = hostPort(d.Addr, "{port}")
	default:
		pattern = hostPort(d.Addr, strconv.Itoa(int(d.Port)))
	}
	if _, err := compileNetPattern(pattern, s.Op); err != nil {
		return "", false
	}
	// A "*" or "?" written from a socket's own name would need a reason it
	// cannot have; such a socket stays a violation.
	if p, _ := compileNetPattern(pattern, s.Op); p.isGlob() {
		return "", false
	}
	return pattern, true
}

// recordNetwork fills doc's network section from what o reached, as
// recordFiles does for files: destinations the bases allow are left out,
// the old file's entries keep their reasons, and without merge an entry
// nothing matched goes. An observation without network data leaves the
// section as it was.
func recordNetwork(doc, old *Document, base *Profile, o *Observation, merge bool, res *RecordResult) {
	var kept []NetworkEntry
	if old != nil {
		doc.HasNetwork = old.HasNetwork
		have := map[string]bool{}
		for _, e := range base.NetworkEntries() {
			have[e.key()] = true
		}
		for _, e := range old.Network {
			if have[e.key()] {
				res.RemovedNetwork = append(res.RemovedNetwork, removedNetwork(e))
				continue
			}
			kept = append(kept, e)
		}
	}
	if !o.ObservesNetwork() {
		doc.Network = kept
		return
	}
	baseM, keptM := base.NetworkMatcher(symbolic), newNetworkMatcher(kept, symbolic)
	used := make([]bool, len(kept))
	var fresh []ObservedDestination
	for _, s := range o.NetworkList() {
		if baseM.Allows(s.Op, s.Dest, s.Program) {
			continue
		}
		if i := keptM.index(s.Op, s.Dest, s.Program, true); i >= 0 {
			used[i] = true
			continue
		}
		fresh = append(fresh, s)
	}
	doc.Network = nil
	for i, e := range kept {
		if used[i] || merge {
			doc.Network = append(doc.Network, e)
			continue
		}
		res.RemovedNetwork = append(res.RemovedNetwork, removedNetwork(e))
	}
	have := map[string]bool{}
	for _, e := range doc.Network {
		have[e.key()] = true
	}
	// The run's own ports are judged from everything it did: its listen
	// may be one the bases already allow.
	for _, e := range generaliseNetwork(FileContext{}, fresh, runPortsOf(o.NetworkList())) {
		if have[e.key()] {
			continue
		}
		e.File = doc.Path
		doc.Network = append(doc.Network, e)
		r, l, _ := NetworkRisk(e)
		res.AddedNetwork = append(res.AddedNetwork, NetworkFinding{Op: e.Op, Dest: e.Pattern, Program: e.By, Risk: r, Level: l, File: doc.Path})
	}
	doc.HasNetwork = doc.HasNetwork || len(doc.Network) > 0 || !base.NetworkGated()
}

func removedNetwork(e NetworkEntry) NetworkFinding {
	return NetworkFinding{Op: e.Op, Dest: e.Pattern, Program: e.By, File: e.File, Line: e.Line}
}

// lineNetwork gives each added network entry its line in the file as
// written.
func (res *RecordResult) lineNetwork(written *Document) {
	for i := range res.AddedNetwork {
		a := &res.AddedNetwork[i]
		if j := slices.IndexFunc(written.Network, func(e NetworkEntry) bool {
			return e.Pattern == a.Dest && e.Op == a.Op && e.By == a.Program
		}); j >= 0 {
			a.Line = written.Network[j].Line
		}
	}
}
