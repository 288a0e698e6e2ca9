package harness

import (
	"net/netip"
	"sort"
	"sync"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

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
	kept    map[netKey]*verdict.NetworkTouch
	dests   map[netKey]baseline.Destination
	allowed uint64
	notKept uint64
	// unverified are why destinations could not be vouched for (a
	// sendmmsg of several messages on the audit backend records only
	// the last one's address).
	unverified map[string]bool
}

func newNetBook(learn bool, m *baseline.NetworkMatcher) *netBook {
	return &netBook{learn: learn, matcher: m, kept: map[netKey]*verdict.NetworkTouch{},
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
	limit := verdict.MaxKept
	if b.learn {
		limit = verdict.MaxLearnedNetwork
	}
	if len(b.kept) >= limit {
		b.notKept++
		return
	}
	t := &verdict.NetworkTouch{Op: a.Op, Dest: a.Dest.String(), Program: a.Exe, Syscall: a.Syscall, PID: a.PID, Count: 1, Denied: a.Denied}
	if a.Dest.Name != "" && a.Dest.Addr.IsValid() {
		t.Addr = a.Dest.Addr.String()
	}
	b.kept[k], b.dests[k] = t, a.Dest
}

// unverify notes a reason the run cannot vouch for a destination.
func (b *netBook) unverify(why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.unverified) < verdict.MaxKept {
		b.unverified[why] = true
	} else {
		b.notKept++
	}
}

// touches are the kept calls with their destinations, sorted by call,
// destination and program.
func (b *netBook) touches() ([]verdict.NetworkTouch, []baseline.Destination) {
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
	ts := make([]verdict.NetworkTouch, len(keys))
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
