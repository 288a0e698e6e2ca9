package baseline

import "github.com/sysgate/sysgate/baseline/risk"

// NetworkFinding is one destination in a diff: an observed call the
// profile does not allow, or a network entry no call matched.
type NetworkFinding struct {
	Op NetOp `json:"op"`
	// Dest is the observed destination (Destination.String: the name
	// when a lookup gave one), or for an unused entry its pattern.
	Dest    string `json:"dest"`
	Program string `json:"program,omitempty"`
	Count   uint64 `json:"count,omitempty"`
	// Risk and Level: why the entry the destination needs is high risk.
	Risk  risk.Class `json:"risk,omitempty"`
	Level risk.Level `json:"level,omitempty"`
	// Explain: "not in the baseline; it has 127.0.0.1:{port}".
	Explain string `json:"explain,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// diffNetwork compares the observed destinations with the network
// entries, unix paths symbolically as observations keep them.
func diffNetwork(p *Profile, o *Observation) (added, unused []NetworkFinding) {
	seen := o.NetworkList()
	if p.NetworkGated() {
		m := p.NetworkMatcher(symbolic)
		target := p.agentDoc()
		for _, s := range seen {
			if m.Allows(s.Op, s.Dest, s.Program) {
				continue
			}
			f := NetworkFinding{Op: s.Op, Dest: s.Dest.String(), Program: s.Program, Count: s.Count, Explain: m.Explain(s.Op, s.Dest, s.Program)}
			// The risk is the one of the entry record would write for it.
			for _, e := range GeneraliseNetwork(FileContext{}, []ObservedDestination{s}) {
				if r, l, _ := NetworkRisk(e); r.Risky() {
					f.Risk, f.Level = r, l
				}
			}
			if target != nil {
				f.File = target.Path
			}
			added = append(added, f)
		}
	}
	if !o.ObservesNetwork() {
		return added, nil
	}
	for _, e := range p.NetworkEntries() {
		if !p.direct[e.File] || networkEntryUsed(e, seen) {
			continue
		}
		unused = append(unused, removedNetwork(e))
	}
	return added, unused
}

func networkEntryUsed(e NetworkEntry, seen []ObservedDestination) bool {
	m := newNetworkMatcher([]NetworkEntry{e}, symbolic)
	for _, s := range seen {
		if m.Allows(s.Op, s.Dest, s.Program) {
			return true
		}
	}
	return false
}

// widenNetwork: as widenFiles, a base without a network section allows
// every destination, so only a base with one can be widened. A new or
// changed entry widens (telling whether one pattern covers another is
// not worth a wrong "no"), unless a base entry allows its literal
// destination already.
func widenNetwork(base, cur *Profile) []Widened {
	switch {
	case !cur.NetworkGated() && base.NetworkGated():
		file := firstDocWith(base, func(d *Document) bool { return d.HasNetwork })
		return []Widened{{Kind: WidenUngated, Reason: "the network section is gone: every destination is allowed", File: file}}
	case !cur.NetworkGated():
		return nil
	}
	// A base without the section allowed no entries of it (widenFiles).
	have := map[string]bool{}
	for _, e := range base.NetworkEntries() {
		have[e.key()] = true
	}
	bm := base.NetworkMatcher(symbolic)
	var out []Widened
	for _, e := range cur.NetworkEntries() {
		if have[e.key()] {
			continue
		}
		if d, err := ParseDestination(e.Pattern); err == nil && e.By == "" && bm.Allows(e.Op, d, "") {
			continue
		}
		r, l, why := NetworkRisk(e)
		out = append(out, Widened{Kind: WidenNetwork, Path: e.Op.String() + " " + e.String(), Reason: e.Reason,
			Risk: r, Level: l, RiskReason: why, File: e.File, Line: e.Line})
	}
	return out
}
