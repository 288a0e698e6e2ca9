package ci

import (
	"cmp"
	"slices"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/verdict"
)

// Every renderer lists what is most dangerous first: a sensitive file or
// a risky syscall, program or destination, the high ones before the
// rest, so it is never the eighth of 24 lines among locale files. The
// zero value is unranked (an annotation that is no finding).
const (
	dangerHigh = iota + 1
	dangerRisky
	dangerPlain
)

// dangerOrder sorts by rank, the unranked last.
func dangerOrder(a, b int) int {
	if a == 0 {
		a = dangerPlain + 1
	}
	if b == 0 {
		b = dangerPlain + 1
	}
	return cmp.Compare(a, b)
}

func fileDanger(v verdict.FileViolation) int {
	switch {
	case v.Sensitive == "":
		return dangerPlain
	case v.Level == string(risk.High):
		return dangerHigh
	}
	return dangerRisky
}

func networkDanger(v verdict.NetworkViolation) int { return riskDanger(v.Risk.Risky(), v.Level) }

// riskDanger ranks a finding by its risk class and level.
func riskDanger(risky bool, level risk.Level) int {
	switch {
	case !risky:
		return dangerPlain
	case level == risk.High:
		return dangerHigh
	}
	return dangerRisky
}

// programDanger ranks an exec mismatch with the high risks.
func programDanger(v verdict.ProgramViolation) int { return max(programRank(v), dangerHigh) }

// byDanger is vs sorted most dangerous first, the order kept otherwise.
func byDanger[T any](vs []T, rank func(T) int) []T {
	out := slices.Clone(vs)
	slices.SortStableFunc(out, func(a, b T) int { return dangerOrder(rank(a), rank(b)) })
	return out
}

// worst is the rank of the most dangerous of vs (dangerPlain for none).
func worst[T any](vs []T, rank func(T) int) int {
	w := dangerPlain
	for _, v := range vs {
		w = min(w, rank(v))
	}
	return w
}

// rankedRow is a rendered table row and the danger of what it shows.
type rankedRow struct {
	danger int
	text   string
}

func (r rankedRow) rank() int { return r.danger }
