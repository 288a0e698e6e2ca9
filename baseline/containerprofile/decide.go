package containerprofile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/moby/profiles/seccomp"

	"github.com/sysgate/sysgate/baseline/argclass"
)

// ruleHit is a rule that names a needed syscall and matches some of its
// calls.
type ruleHit struct {
	index int
	rule  *seccomp.Syscall
	cover coverage
	allow bool
	maybe []string
}

// ruleHits are the rules that name one needed syscall on an arch and
// match some of its calls: hits apply, maybes wait on a kernel condition
// compare cannot settle. allowedWith lists the conditions (capabilities,
// kernels) under which a rule that does not apply would allow the call.
type ruleHits struct {
	hits, maybes []ruleHit
	allowedWith  []string
}

// decide is what the profile does with key's calls on v's arch. An
// applicable rule that matches every call decides, a denying one before
// an allowing one (libseccomp would refuse some such pairs; denying is the
// answer that cannot hide a failure); one that matches some calls, or one
// whose kernel condition is undecided, leaves the answer conditional.
func (cp *ContainerProfile) decide(v archView, key string, caps []string, kernel *seccomp.KernelVersion) ProfileDecision {
	d := ProfileDecision{Syscall: key}
	if !v.covered {
		d.Verdict = VerdictDenied
		d.Why = fmt.Sprintf("the profile lets no %s call through (%s is not among its architectures on the host)", v.arch, v.spec)
		return d
	}
	rh := cp.collectHits(v, key, caps, kernel)
	blind := unsettledArgs(v, key)
	at := func(h *ruleHit) string { return cp.ruleSite(rh, h) }
	byRule := func(h *ruleHit, verdict, why string) ProfileDecision {
		return cp.decisionByRule(d, h, verdict, why, rh.allowedWith)
	}
	hits, maybes := rh.hits, rh.maybes
	// what the decided rules say
	switch {
	case findHit(hits, false, coverAll) != nil:
		h := findHit(hits, false, coverAll)
		return byRule(h, VerdictDenied, "denied by "+at(h))
	case findHit(hits, false, coverSome) != nil:
		h := findHit(hits, false, coverSome)
		return byRule(h, VerdictConditional, "denied for some arguments by "+at(h)+blind)
	case findHit(hits, true, coverAll) != nil, allows(cp.Spec.DefaultAction):
		h := findHit(maybes, false, coverAll)
		if h == nil {
			h = findHit(maybes, false, coverSome)
		}
		if h == nil {
			d.Verdict = VerdictAllowed
			return d
		}
		return byRule(h, VerdictConditional, "denied on "+strings.Join(h.maybe, " and ")+" by "+at(h)+": the kernel decides")
	case findHit(hits, true, coverSome) != nil:
		h := findHit(hits, true, coverSome)
		return byRule(h, VerdictConditional, "allowed only for some arguments by "+at(h)+blind)
	}
	// denied by the default action, unless an undecided rule allows it
	if h := findHit(maybes, true, coverAll); h != nil {
		return byRule(h, VerdictConditional, "allowed on "+strings.Join(h.maybe, " and ")+" by "+at(h)+", else denied by the default action: the kernel decides")
	}
	if h := findHit(maybes, true, coverSome); h != nil {
		return byRule(h, VerdictConditional, "allowed for some arguments on "+strings.Join(h.maybe, " and ")+" by "+at(h)+", else denied by the default action"+blind)
	}
	d.Verdict = VerdictDenied
	d.Action = string(cp.Spec.DefaultAction)
	d.Errno = errnoName(cp.Spec.DefaultAction, cp.Spec.DefaultErrnoRet)
	d.Rule = "defaultAction"
	d.RuleLine = cp.DefaultLine
	d.Why = "denied by the default action"
	d.AllowedWith = rh.allowedWith
	return d
}

// collectHits sorts the profile's rules for key on v's arch into those
// that apply, those a kernel condition leaves undecided, and the
// conditions under which the others would allow it.
func (cp *ContainerProfile) collectHits(v archView, key string, caps []string, kernel *seccomp.KernelVersion) ruleHits {
	var rh ruleHits
	name := argclass.SyscallOf(key)
	alts := classAlternatives(v.arch, key)
	for i, r := range cp.Spec.Syscalls {
		if !slices.Contains(ruleNames(r), name) {
			continue
		}
		a := applicable(r, v, caps, kernel)
		if !a.archOK {
			continue
		}
		cover := coverNone
		for _, conj := range runcConditions(r.Args) {
			cover = max(cover, ruleCoverage(alts, conj))
		}
		if cover == coverNone {
			continue
		}
		h := ruleHit{index: i, rule: r, cover: cover, allow: allows(r.Action), maybe: a.maybe}
		switch {
		case a.applies():
			rh.hits = append(rh.hits, h)
		case a.undecided():
			rh.maybes = append(rh.maybes, h)
		case h.allow:
			cond := strings.Join(append(slices.Clone(a.unmet), a.maybe...), " and ")
			if cover == coverSome {
				cond += " (for some arguments)"
			}
			if !slices.Contains(rh.allowedWith, cond) {
				rh.allowedWith = append(rh.allowedWith, cond)
			}
		}
	}
	return rh
}

// unsettledArgs says why a rule that matches "some arguments" cannot be
// settled for key: appended to a conditional verdict's reason.
func unsettledArgs(v archView, key string) string {
	if _, class := argclass.SplitKey(key); class != "" {
		return "; the rule compares arguments the class leaves open"
	}
	blind := "; the entry names no argument class, so compare cannot tell which arguments the agent passes"
	if argclass.HasClasses(v.arch, argclass.SyscallOf(key)) {
		blind += " (record with argument classes)"
	}
	return blind
}

// findHit is the first hit of hs that allows (or denies) with the given
// coverage, or nil.
func findHit(hs []ruleHit, allow bool, cover coverage) *ruleHit {
	for i := range hs {
		if hs[i].allow == allow && hs[i].cover == cover {
			return &hs[i]
		}
	}
	return nil
}

// decisionByRule is d decided by h's rule; a denial also lists the
// conditions under which another rule would allow the call.
func (cp *ContainerProfile) decisionByRule(d ProfileDecision, h *ruleHit, verdict, why string, allowedWith []string) ProfileDecision {
	d.Verdict, d.Why = verdict, why
	d.Action = string(h.rule.Action)
	d.Errno = errnoName(h.rule.Action, h.rule.ErrnoRet)
	d.Rule = fmt.Sprintf("syscalls[%d]", h.index)
	d.RuleLine = cp.RuleLine(h.index)
	d.Comment = h.rule.Comment
	if verdict == VerdictDenied {
		d.AllowedWith = allowedWith
	}
	return d
}

// ruleSite names h's rule, and how many others of the same kind there
// are, for a verdict's reason.
func (cp *ContainerProfile) ruleSite(rh ruleHits, h *ruleHit) string {
	where := fmt.Sprintf("the rule syscalls[%d] of %s", h.index, cp.Path)
	if line := cp.RuleLine(h.index); line > 0 {
		where = fmt.Sprintf("the rule at %s:%d", cp.Path, line)
	}
	others := -1
	for _, hs := range [][]ruleHit{rh.hits, rh.maybes} {
		for _, o := range hs {
			if o.allow == h.allow && o.cover == h.cover && slices.Equal(o.maybe, h.maybe) {
				others++
			}
		}
	}
	if others > 0 {
		where += fmt.Sprintf(" (and %d more like it)", others)
	}
	return where
}
