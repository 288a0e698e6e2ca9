package baseline

import (
	"fmt"
	"sort"
	"strings"
)

// ObservedDestination is one destination a run reached, with the call,
// the program that made it ("" when unknown) and how often.
type ObservedDestination struct {
	Op      NetOp
	Dest    Destination
	Program string
	Count   uint64
}

// AddNetwork counts n calls op to dest by program. Any call makes the
// observation one that saw the network, even with n 0. A name is kept in
// lowercase without a trailing dot (DNS is case-blind, and resolvers
// randomise case); the caller passes a name outside letters, digits, "-"
// and "_" as no name (a query for one is a finding of its own), since
// DecodeObservation refuses it.
func (o *Observation) AddNetwork(op NetOp, dest Destination, program string, n uint64) {
	dest.Name = strings.TrimSuffix(strings.ToLower(dest.Name), ".")
	if o.Network == nil {
		o.Network = map[string]map[string]map[string]uint64{}
	}
	byDest := o.Network[op.String()]
	if byDest == nil {
		byDest = map[string]map[string]uint64{}
		o.Network[op.String()] = byDest
	}
	byProg := byDest[dest.Key()]
	if byProg == nil {
		byProg = map[string]uint64{}
		byDest[dest.Key()] = byProg
	}
	byProg[program] += n
}

// ObservesNetwork reports whether the runs watched the network at all:
// only then does the observation say which network entries went unused.
func (o *Observation) ObservesNetwork() bool { return o != nil && o.Network != nil }

// NetworkList returns the observed calls sorted by call, destination and
// program. A key ParseDestination refuses is left out (checkNetwork
// refuses such an observation when it is read).
func (o *Observation) NetworkList() []ObservedDestination {
	if o == nil {
		return nil
	}
	var out []ObservedDestination
	for name, byDest := range o.Network {
		op, _ := ParseNetOp(name)
		for key, byProg := range byDest {
			d, err := ParseDestination(key)
			if err != nil {
				continue
			}
			for prog, n := range byProg {
				out = append(out, ObservedDestination{Op: op, Dest: d, Program: prog, Count: n})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if ak, bk := a.Dest.Key(), b.Dest.Key(); ak != bk {
			return ak < bk
		}
		return a.Program < b.Program
	})
	return out
}

func (o *Observation) mergeNetwork(other *Observation) {
	if other.Network != nil && o.Network == nil {
		o.Network = map[string]map[string]map[string]uint64{}
	}
	for _, s := range other.NetworkList() {
		o.AddNetwork(s.Op, s.Dest, s.Program, s.Count)
	}
}

// checkNetwork refuses a call or destination this sysgate cannot read,
// and a program that is not an absolute path.
func (o *Observation) checkNetwork() error {
	for name, byDest := range o.Network {
		if _, ok := ParseNetOp(name); !ok {
			return fmt.Errorf("observation: network: unknown call %q (known: connect, bind, listen, send, resolve)", name)
		}
		for key, byProg := range byDest {
			if _, err := ParseDestination(key); err != nil {
				return fmt.Errorf("observation: network: %w", err)
			}
			for prog := range byProg {
				if prog != "" && !strings.HasPrefix(prog, "/") {
					return fmt.Errorf("observation: network: %s: program %q is not an absolute path", key, prog)
				}
			}
		}
	}
	return nil
}

// writeNetwork lists the destinations in String: "connect:
// api.openai.com=104.18.7.192:443×2 (/usr/bin/python3)".
func (o *Observation) writeNetwork(b *strings.Builder) {
	last := NetOp(0)
	for _, s := range o.NetworkList() {
		if s.Op != last {
			fmt.Fprintf(b, "\n  network %s:", s.Op)
			last = s.Op
		}
		fmt.Fprintf(b, " %s×%d", s.Dest.Key(), s.Count)
		if s.Program != "" {
			fmt.Fprintf(b, " (%s)", s.Program)
		}
	}
}
