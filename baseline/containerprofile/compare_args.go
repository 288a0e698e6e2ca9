package containerprofile

import (
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/scmp"
)

// How much of an argument class a profile rule's argument comparisons
// match: every call of the class, none, or some. A class is a union of
// alternatives, each a set of masked comparisons on register arguments;
// a rule (as runc loads it) is a conjunction of comparisons, one per
// argument, so per alternative the answer is the conjunction of
// independent per-argument answers.

type coverage int

const (
	coverNone coverage = iota + 1
	coverSome
	coverAll
)

// argRange is the calls of one alternative on one register argument:
// every x with x&mask == value. An argument the class leaves free has mask 0.
type argRange struct{ mask, value uint64 }

func (r argRange) min() uint64 { return r.value }
func (r argRange) max() uint64 { return r.value | ^r.mask }

// classAlternatives returns key's calls on arch as per-argument ranges: one
// alternative with every argument free for an argument-blind key (or a
// syscall without classes), else one per alternative of the class. A
// class compares 32-bit arguments on their lower half (the kernel reads an
// int); here their upper half is taken as zero, as a C library passes it,
// so that "socket(AF_UNIX)" is the call a rule "index 0 == 1" allows.
func classAlternatives(arch scmp.Arch, key string) [][6]argRange {
	alts := argclass.ClassMatch(arch, key)
	if len(alts) == 0 {
		return [][6]argRange{{}}
	}
	out := make([][6]argRange, 0, len(alts))
next:
	for _, alt := range alts {
		var rs [6]argRange
		for _, c := range alt {
			mask, value := c.Mask, c.Value
			if mask>>32 == 0 {
				mask |= 0xffffffff << 32
			}
			r := &rs[c.Arg]
			if (r.value^value)&r.mask&mask != 0 {
				continue next // contradictory: no call
			}
			r.mask |= mask
			r.value |= value & mask
		}
		out = append(out, rs)
	}
	return out
}

// argCoverage is how many calls in r satisfy one comparison.
func argCoverage(r argRange, a specs.LinuxSeccompArg) coverage {
	switch a.Op {
	case specs.OpMaskedEqual: // Value is the mask, ValueTwo the value (runc's order)
		return maskedCoverage(r, a.Value, a.ValueTwo)
	case specs.OpEqualTo:
		return maskedCoverage(r, ^uint64(0), a.Value)
	case specs.OpNotEqual:
		switch maskedCoverage(r, ^uint64(0), a.Value) {
		case coverAll:
			return coverNone
		case coverNone:
			return coverAll
		}
		return coverSome
	case specs.OpLessThan:
		return orderCoverage(r.max() < a.Value, r.min() < a.Value)
	case specs.OpLessEqual:
		return orderCoverage(r.max() <= a.Value, r.min() <= a.Value)
	case specs.OpGreaterThan:
		return orderCoverage(r.min() > a.Value, r.max() > a.Value)
	case specs.OpGreaterEqual:
		return orderCoverage(r.min() >= a.Value, r.max() >= a.Value)
	}
	return coverSome // unreachable: ReadContainerProfile refuses other operators
}

// maskedCoverage: which x in r have x&m == v.
func maskedCoverage(r argRange, m, v uint64) coverage {
	switch {
	case v&^m != 0: // a bit outside the mask never matches
		return coverNone
	case (r.value^v)&m&r.mask != 0: // a bit both fix differently
		return coverNone
	case m&^r.mask == 0: // the rule looks only at bits the class fixes
		return coverAll
	}
	return coverSome
}

// orderCoverage: the largest value of a range satisfies an upper bound
// (or its smallest a lower bound) exactly when all do; the range is
// contiguous in order at its ends, so if its best end satisfies and the
// other does not, some do.
func orderCoverage(all, any bool) coverage {
	switch {
	case all:
		return coverAll
	case any:
		return coverSome
	}
	return coverNone
}

// ruleCoverage is how much of key's calls on arch one rule's comparisons
// match; a rule without comparisons matches every call.
func ruleCoverage(alts [][6]argRange, args []specs.LinuxSeccompArg) coverage {
	if len(args) == 0 {
		return coverAll
	}
	seenAll, seenNone := false, false
	for _, rs := range alts {
		c := coverAll
		for _, a := range args {
			switch argCoverage(rs[a.Index], a) {
			case coverNone:
				c = coverNone
			case coverSome:
				if c == coverAll {
					c = coverSome
				}
			}
			if c == coverNone {
				break
			}
		}
		switch c {
		case coverAll:
			seenAll = true
		case coverNone:
			seenNone = true
		default:
			return coverSome
		}
	}
	switch {
	case seenAll && seenNone:
		return coverSome
	case seenAll:
		return coverAll
	}
	return coverNone
}

// runcConditions splits a rule's comparisons the way runc adds them to
// libseccomp: all in one rule (a conjunction) when each argument is
// compared once, else one rule per comparison (so the comparisons on one
// argument are alternatives, as libseccomp cannot AND them).
func runcConditions(args []specs.LinuxSeccompArg) [][]specs.LinuxSeccompArg {
	var seen [6]bool
	for _, a := range args {
		if seen[a.Index] {
			out := make([][]specs.LinuxSeccompArg, 0, len(args))
			for _, a := range args {
				out = append(out, []specs.LinuxSeccompArg{a})
			}
			return out
		}
		seen[a.Index] = true
	}
	return [][]specs.LinuxSeccompArg{args}
}
