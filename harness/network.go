package harness

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// maxLearnedNetwork bounds the distinct (call, destination, program)
// triples a record run keeps to learn from. A record run past it is
// inconclusive, as for files.
const maxLearnedNetwork = 20000

// tunnelNames is how many distinct names under one registrable domain a
// run may look up before the lookups themselves are reported: data leaves
// in the labels of the names (DNS tunnelling), whatever the baselines
// allow.
const tunnelNames = 30

// netAccess is one socket call, as an observer (the audit rules, or the
// notify backend's proxy) saw the kernel make it.
type netAccess struct {
	Op      baseline.NetOp
	Dest    baseline.Destination
	Syscall string
	PID     int
	Exe     string
	// Denied: the call was refused (enforce) and not made.
	Denied bool
}

// NetworkTouch is one destination the run's processes reached with one
// call, by one program.
type NetworkTouch struct {
	Op baseline.NetOp `json:"op"`
	// Dest is where it went, as entries write it: "api.openai.com:443"
	// when a lookup of the run gave the name, else "127.0.0.2:9",
	// "[::1]:80", "unix:/run/docker.sock", or a name (resolve).
	Dest string `json:"dest"`
	// Addr is the address when Dest is a name ("" otherwise).
	Addr    string `json:"addr,omitempty"`
	Program string `json:"program"` // the caller's executable ("" when unknown)
	// Script is the script the process was started on (an interpreter's
	// "#!" file or argument), when the run saw that exec.
	Script  string `json:"script,omitempty"`
	Syscall string `json:"syscall"` // the first call that did it
	PID     int    `json:"pid"`
	Count   uint64 `json:"count"`
	// Risk and Level: why the entry the destination needs is risky
	// (baseline.NetworkRisk).
	Risk  risk.Class `json:"risk,omitempty"`
	Level risk.Level `json:"level,omitempty"`
	// Denied: enforce refused it (EACCES): the agent tried, nothing left.
	Denied bool `json:"denied,omitempty"`
}

// NetworkViolation is a destination outside the baselines' network section.
type NetworkViolation struct {
	NetworkTouch
	// Has says why, and what the baselines have that comes closest: "not
	// in the baseline; it has 127.0.0.1:{port}".
	Has string `json:"has,omitempty"`
	// File: where the entry would go.
	File string `json:"file,omitempty"`
}

// String is one line for Gomega and logs: "connect 127.0.0.2:9 x1 (not
// in the baseline; it has 127.0.0.1:{port}) by /usr/bin/python3.11 pid
// 41 (connect)".
func (v NetworkViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", v.Op, v.Dest)
	if v.Addr != "" {
		fmt.Fprintf(&b, " (%s)", v.Addr)
	}
	if v.Count > 0 {
		fmt.Fprintf(&b, " x%d", v.Count)
	}
	if v.Has != "" {
		fmt.Fprintf(&b, " (%s)", v.Has)
	}
	if v.Risk != "" {
		fmt.Fprintf(&b, " [%s, %s]", v.Risk, v.Level)
	}
	if v.Program != "" || v.PID != 0 {
		fmt.Fprintf(&b, " by %s", programOrUnknown(v.Program))
		if v.Script != "" {
			fmt.Fprintf(&b, " running %s", v.Script)
		}
		fmt.Fprintf(&b, " pid %d (%s)", v.PID, v.Syscall)
	}
	if v.Denied {
		b.WriteString(", refused")
	}
	if v.File != "" {
		fmt.Fprintf(&b, " -> %s", v.File)
	}
	return untrusted.Terminal(b.String())
}

func programOrUnknown(p string) string {
	if p == "" {
		return "an unknown program"
	}
	return p
}

// ResolvedName is a name the run's processes looked up through its
// recording forwarder, with the addresses the answers gave.
type ResolvedName struct {
	Name  string   `json:"name"`
	Addrs []string `json:"addrs,omitempty"`
	Rcode string   `json:"rcode,omitempty"` // the last answer's, when not NOERROR
}

type netKey struct {
	op      baseline.NetOp
	dest    string // Destination.Key
	program string
}

// netBook collects a run's socket calls from its observer's goroutine,
// as fileBook does files: a check or enforce run keeps those outside the
// baselines, a record run keeps all.
type netBook struct {
	mu sync.Mutex
	// matcher gates (nil: nothing is gated, a record run or a stack
	// without a network section).
	matcher *baseline.NetworkMatcher
	learn   bool
	// name gives an address the name a lookup of this run (or the hosts
	// file) gave it; nil or "" when none did.
	name func(netip.Addr) string
	// own reports a destination that is the run's own machinery (its
	// recording forwarder): neither learnt nor gated.
	own     func(baseline.Destination) bool
	kept    map[netKey]*NetworkTouch
	dests   map[netKey]baseline.Destination
	allowed uint64
	notKept uint64
	// unverified are why destinations could not be vouched for (a
	// sendmmsg of several messages on the audit backend records only
	// the last one's address).
	unverified map[string]bool
}

func newNetBook(learn bool, m *baseline.NetworkMatcher) *netBook {
	return &netBook{learn: learn, matcher: m, kept: map[netKey]*NetworkTouch{},
		dests: map[netKey]baseline.Destination{}, unverified: map[string]bool{}}
}

// outside reports whether the baselines do not allow op to d by program.
func (b *netBook) outside(op baseline.NetOp, d baseline.Destination, program string) bool {
	return b.matcher != nil && !b.matcher.Allows(op, d, program)
}

// named gives d the name a lookup of the run gave its address.
func (b *netBook) named(d baseline.Destination) baseline.Destination {
	if d.Name == "" && d.Addr.IsValid() && b.name != nil {
		d.Name = b.name(d.Addr)
	}
	return d
}

func (b *netBook) add(a netAccess) {
	a.Dest = b.named(a.Dest)
	if b.own != nil && b.own(a.Dest) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// A refusal of a destination the baselines allow (a firewall, an
	// LSM) is no violation: the call is judged by where it went.
	bad := b.outside(a.Op, a.Dest, a.Exe)
	if !bad && !b.learn {
		b.allowed++
		return
	}
	k := netKey{a.Op, a.Dest.Key(), a.Exe}
	if t, ok := b.kept[k]; ok {
		t.Count++
		return
	}
	limit := MaxKept
	if b.learn {
		limit = maxLearnedNetwork
	}
	if len(b.kept) >= limit {
		b.notKept++
		return
	}
	t := &NetworkTouch{Op: a.Op, Dest: a.Dest.String(), Program: a.Exe, Syscall: a.Syscall, PID: a.PID, Count: 1, Denied: a.Denied}
	if a.Dest.Name != "" && a.Dest.Addr.IsValid() {
		t.Addr = a.Dest.Addr.String()
	}
	b.kept[k], b.dests[k] = t, a.Dest
}

// unverify notes a reason the run cannot vouch for a destination.
func (b *netBook) unverify(why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.unverified) < MaxKept {
		b.unverified[why] = true
	} else {
		b.notKept++
	}
}

// touches are the kept calls with their destinations, sorted by call,
// destination and program.
func (b *netBook) touches() ([]NetworkTouch, []baseline.Destination) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := make([]netKey, 0, len(b.kept))
	for k := range b.kept {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, c := keys[i], keys[j]
		if a.op != c.op {
			return a.op < c.op
		}
		if a.dest != c.dest {
			return a.dest < c.dest
		}
		return a.program < c.program
	})
	ts := make([]NetworkTouch, len(keys))
	ds := make([]baseline.Destination, len(keys))
	for i, k := range keys {
		ts[i], ds[i] = *b.kept[k], b.dests[k]
	}
	return ts, ds
}

func (b *netBook) unverifiedReasons() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, 0, len(b.unverified))
	for s := range b.unverified {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// networkReasons are why the network part of a run leaves it
// inconclusive.
func (r *Result) networkReasons() []error {
	var out []error
	for _, why := range r.UnverifiedNetwork {
		out = append(out, fmt.Errorf("a destination could not be vouched for: %s", untrusted.Terminal(why)))
	}
	if r.NotKept != nil && r.NotKept.LearnedNetwork > 0 {
		out = append(out, fmt.Errorf("%d destinations past the %d a record run learns: a baseline learnt from part of the run would fail its own check", r.NotKept.LearnedNetwork, maxLearnedNetwork))
	}
	return out
}
