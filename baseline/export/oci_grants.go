package export

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/scmp"
)

// grant is one thing a Profile allows on one arch, as the exports write
// it: a syscall name, the comparisons of one alternative of its argument
// class (nil: any arguments) and the comment the rule carries.
type grant struct {
	arch    scmp.Arch
	name    string
	comment string
	args    []specs.LinuxSeccompArg
	argsKey string // args as JSON, "" for none
}

// grantsOf lists what p allows, arch by arch; step prefixes errors.
func grantsOf(p *baseline.Profile, step string) ([]grant, error) {
	arches := p.Arches()
	if len(arches) == 0 {
		return nil, fmt.Errorf("%s: %w: the baseline allows no syscalls", step, baseline.ErrInvalid)
	}
	groupReasons := map[[2]string]string{}
	for _, d := range p.Docs {
		for _, g := range d.Groups {
			groupReasons[[2]string{d.Path, g.Name}] = g.Reason
		}
	}
	var out []grant
	for _, arch := range arches {
		if _, ok := ociArches[arch]; !ok {
			return nil, fmt.Errorf("%s: no OCI name for arch %s", step, arch)
		}
		for _, e := range p.Entries(arch) {
			sys, class := argclass.SplitKey(e.Name)
			if class != "" && p.Allows(arch, sys) {
				continue // the argument-blind entry allows every class
			}
			comment := e.Reason
			if e.Group != "" {
				comment = joinNonEmpty("; ", groupComment(e.Group, groupReasons[[2]string{e.File, e.Group}]), e.Reason)
			}
			alts := argclass.ClassMatch(arch, e.Name)
			if len(alts) == 0 { // no comparisons (i386 socketcall): Compile allows it argument-blind too
				out = append(out, grant{arch: arch, name: sys, comment: comment})
				continue
			}
			for _, alt := range alts {
				args := make([]specs.LinuxSeccompArg, 0, len(alt))
				for _, c := range alt {
					args = append(args, specs.LinuxSeccompArg{Index: c.Arg, Value: c.Mask, ValueTwo: c.Value, Op: specs.OpMaskedEqual})
				}
				key, err := json.Marshal(args)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", step, e.Name, err)
				}
				out = append(out, grant{arch: arch, name: sys, comment: comment, args: args, argsKey: string(key)})
			}
		}
	}
	return out, nil
}

// groupComment is the comment of a group's rule.
func groupComment(name, reason string) string {
	if reason == "" {
		return "group " + name
	}
	return "group " + name + ": " + reason
}

func joinNonEmpty(sep string, parts ...string) string {
	var kept []string
	for _, s := range parts {
		if s != "" {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, sep)
}

// mergedGrant is a syscall with one argument alternative and comment,
// and the scopes (see mergeGrants) that allow it so.
type mergedGrant struct {
	name, comment, argsKey string
	args                   []specs.LinuxSeccompArg
	scopes                 []string // sorted
}

// mergeGrants merges the grants of the arches that scope maps to one
// name: within a scope, an argument-blind grant of a syscall drops its
// class grants, and the distinct comments a syscall has are joined. The
// result is sorted by name, arguments and comment.
func mergeGrants(gs []grant, scope func(scmp.Arch) string) []mergedGrant {
	type inScope struct{ scope, name, argsKey string }
	blind := map[[2]string]bool{}
	for _, g := range gs {
		if g.args == nil {
			blind[[2]string{scope(g.arch), g.name}] = true
		}
	}
	comments := map[inScope][]string{}
	args := map[string][]specs.LinuxSeccompArg{}
	for _, g := range gs {
		s := scope(g.arch)
		if g.args != nil && blind[[2]string{s, g.name}] {
			continue
		}
		k := inScope{s, g.name, g.argsKey}
		comments[k] = appendDistinct(comments[k], g.comment)
		args[g.argsKey] = g.args
	}
	type final struct{ name, argsKey, comment string }
	scopes := map[final][]string{}
	for k, cs := range comments {
		kept := make([]string, 0, len(cs))
		for _, c := range cs {
			if c != "" {
				kept = append(kept, c)
			}
		}
		sort.Strings(kept)
		f := final{k.name, k.argsKey, strings.Join(kept, "; ")}
		scopes[f] = append(scopes[f], k.scope)
	}
	out := make([]mergedGrant, 0, len(scopes))
	for f, ss := range scopes {
		sort.Strings(ss)
		out = append(out, mergedGrant{name: f.name, comment: f.comment, argsKey: f.argsKey, args: args[f.argsKey], scopes: ss})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if a.argsKey != b.argsKey {
			return a.argsKey < b.argsKey
		}
		return a.comment < b.comment
	})
	return out
}

func appendDistinct(list []string, s string) []string {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}

// ruleGroup is one rule of an export: the merged grants that share their
// arches (as the export writes them, "" for all), comment and arguments.
type ruleGroup struct {
	arches, comment, argsKey string
	first                    mergedGrant // for the arguments and scopes
	names                    []string    // sorted
}

// groupRules groups merged grants into rules, arches naming a grant's
// arches. Argument-blind rules come first; then rules for every arch
// before per-arch ones, uncommented before commented.
func groupRules(ms []mergedGrant, arches func(mergedGrant) string) []ruleGroup {
	type key struct{ arches, comment, args string }
	byKey := map[key]*ruleGroup{}
	for _, m := range ms {
		k := key{arches(m), m.comment, m.argsKey}
		r := byKey[k]
		if r == nil {
			r = &ruleGroup{arches: k.arches, comment: k.comment, argsKey: k.args, first: m}
			byKey[k] = r
		}
		r.names = append(r.names, m.name)
	}
	out := make([]ruleGroup, 0, len(byKey))
	for _, r := range byKey {
		sort.Strings(r.names)
		r.names = slices.Compact(r.names)
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.argsKey == "") != (b.argsKey == "") {
			return a.argsKey == ""
		}
		if a.arches != b.arches {
			return a.arches < b.arches
		}
		if a.comment != b.comment {
			return a.comment < b.comment
		}
		return a.argsKey < b.argsKey
	})
	return out
}
