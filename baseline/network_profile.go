package baseline

// NetworkGated reports whether some file of the profile has a network
// section: only then is a destination outside it a violation. A stack
// without one is network-blind (NetworkBlindWarning).
func (p *Profile) NetworkGated() bool {
	if p == nil {
		return false
	}
	for _, d := range p.Docs {
		if d.HasNetwork {
			return true
		}
	}
	return false
}

// NetworkEntries returns the network entries of every file, bases first,
// each once (the first file wins): layers union their sections.
func (p *Profile) NetworkEntries() []NetworkEntry {
	if p == nil {
		return nil
	}
	var out []NetworkEntry
	seen := map[string]bool{}
	for _, d := range p.Docs {
		for _, e := range d.Network {
			if !seen[e.key()] {
				seen[e.key()] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// NetworkBlindWarning is the warning for a stack none of whose files has
// a network section, so that destinations are not gated; nil when the
// profile gates them.
func (p *Profile) NetworkBlindWarning() *Error {
	d := p.agentDoc()
	if d == nil || p.NetworkGated() {
		return nil
	}
	return &Error{File: d.Path, Kind: KindNetBlind, Warning: true,
		Message: "destinations are not gated: no file of this stack has a network section; record with --merge to add one"}
}

// NetworkMatcher answers, for one run's placeholder values (unix socket
// paths take them as files do), which entry allows a call. Build it once
// per run.
type NetworkMatcher struct {
	entries []NetworkEntry
	pats    []netPattern
	unix    [][]glob // per entry: its unix path expanded
}

// NetworkMatcher compiles the profile's network entries with ctx.
func (p *Profile) NetworkMatcher(ctx FileContext) *NetworkMatcher {
	return newNetworkMatcher(p.NetworkEntries(), ctx)
}

func newNetworkMatcher(entries []NetworkEntry, ctx FileContext) *NetworkMatcher {
	m := &NetworkMatcher{}
	for _, e := range entries {
		pat, err := compileNetPattern(e.Pattern, e.Op)
		if err != nil {
			continue // parsing refused it already
		}
		var globs []glob
		if pat.unix != "" && pat.unix[0] != '@' {
			for _, x := range expand(ctx, pat.unix, "") {
				globs = append(globs, compileGlob(x))
			}
		}
		m.entries, m.pats, m.unix = append(m.entries, e), append(m.pats, pat), append(m.unix, globs)
	}
	return m
}

// Allows reports whether an entry allows op to dest by program (the
// caller's executable, absolute; "" when unknown, which no scoped entry
// allows).
func (m *NetworkMatcher) Allows(op NetOp, dest Destination, program string) bool {
	_, ok := m.Lookup(op, dest, program)
	return ok
}

// Lookup returns the first entry, bases first, that allows the call.
func (m *NetworkMatcher) Lookup(op NetOp, dest Destination, program string) (NetworkEntry, bool) {
	if i := m.index(op, dest, program, true); i >= 0 {
		return m.entries[i], true
	}
	return NetworkEntry{}, false
}

func (m *NetworkMatcher) index(op NetOp, dest Destination, program string, scoped bool) int {
	for i, e := range m.entries {
		if e.Op != op || (scoped && e.By != "" && e.By != program) {
			continue
		}
		if m.pats[i].matches(dest, m.unix[i]) {
			return i
		}
	}
	return -1
}

// Explain says why a call is refused, for reports: "not in the baseline;
// it has 127.0.0.1:{port}". It names, in this order, an entry that
// allows the destination for another program, one for the same host on
// another port, one of the same call, or one of another call.
func (m *NetworkMatcher) Explain(op NetOp, dest Destination, program string) string {
	if i := m.index(op, dest, program, false); i >= 0 {
		return "not in the baseline for " + programOrUnknown(program) + "; it has " + m.entries[i].String()
	}
	anyPort := dest
	for i, p := range m.pats {
		if m.entries[i].Op != op || p.port < 0 {
			continue
		}
		anyPort.Port = uint16(p.port)
		if p.matches(anyPort, m.unix[i]) {
			return "not in the baseline; it has " + m.entries[i].String()
		}
	}
	for _, e := range m.entries {
		if e.Op == op {
			return "not in the baseline; it has " + e.String()
		}
	}
	if len(m.entries) > 0 {
		return "not in the baseline; it has " + m.entries[0].Op.String() + " " + m.entries[0].String()
	}
	return "not in the baseline; its network section is empty"
}

func programOrUnknown(p string) string {
	if p == "" {
		return "an unknown program"
	}
	return p
}

// checkNetworkDuplicates reports a network entry (call, pattern and
// program) that two files of one extends stack list, as for files.
func (l *loader) checkNetworkDuplicates(stack []*Document) {
	var entries []stackEntry
	for _, d := range stack {
		for _, e := range d.Network {
			entries = append(entries, stackEntry{key: e.key(), name: e.Op.String() + " " + e.String(), file: e.File, line: e.Line, col: e.Col})
		}
	}
	l.checkStackDuplicates(entries)
}
