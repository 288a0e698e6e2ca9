package baseline

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

// footComments warns about comments below a block: the writer keeps only
// comments above or beside an entry.
func (p *parser) footComments(n *yaml.Node) {
	if n.FootComment != "" {
		p.warn(n, KindFormat, "comment below this block is not kept by `sysgate baseline fmt`; move it above an entry")
	}
	for _, c := range n.Content {
		p.footComments(c)
	}
}

// dropComments warns about comments in places the writer does not keep.
func (p *parser) dropComments(n *yaml.Node) {
	if n.HeadComment != "" || n.LineComment != "" {
		p.warn(n, KindFormat, "comment here is not kept by `sysgate baseline fmt`; move it into a reason")
	}
}

func joinComments(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// archesWith lists the arches on which libseccomp knows name, for a hint
// when a syscall sits under the wrong arch.
func archesWith(name string) []string {
	var out []string
	for _, a := range scmp.ArchNames() {
		arch, _ := scmp.ParseArch(a)
		if _, ok := scmp.Number(arch, name); ok {
			out = append(out, a)
		}
	}
	return out
}

// suggest prefers the shortest known name that extends the unknown one
// ("open" on aarch64 -> "openat"), then the closest by edit distance.
func suggest(arch scmp.Arch, name string) string {
	best := ""
	for _, known := range scmp.Names(arch) {
		if strings.HasPrefix(known, name) && (best == "" || len(known) < len(best)) {
			best = known
		}
	}
	if best != "" {
		return best
	}
	return scmp.Closest(arch, name)
}

// crossDuplicates reports a syscall listed both in the syscalls list and a
// group, or in two groups, of one file (duplicates within one list are
// found while reading it).
func (p *parser) crossDuplicates(doc *Document) {
	type where struct {
		list string
		line int
	}
	seen := map[scmp.Arch]map[string]where{}
	check := func(list string, sections []Section) {
		for _, sec := range sections {
			if seen[sec.Arch] == nil {
				seen[sec.Arch] = map[string]where{}
			}
			for _, e := range sec.Entries {
				if first, dup := seen[sec.Arch][e.Name]; dup {
					p.errs = append(p.errs, &Error{File: p.path, Line: e.Line, Col: e.Col, Kind: KindDuplicate,
						Message: fmt.Sprintf("%s on %s is already listed in %s (line %d)", e.Name, sec.Arch, first.list, first.line)})
					continue
				}
				seen[sec.Arch][e.Name] = where{list, e.Line}
			}
		}
	}
	check("syscalls", doc.Syscalls)
	for _, g := range doc.Groups {
		check("group "+g.Name, g.Syscalls)
	}
}

// unmonitored reads the unmonitored section: per arch, channels the filter
// cannot see (Channels) that the baseline lets through, each with a reason.
func (p *parser) unmonitored(val *yaml.Node) []Section {
	p.inUnmonitored = true
	sections := p.sections(val, "unmonitored")
	p.inUnmonitored = false
	for si := range sections {
		kept := sections[si].Entries[:0]
		for _, e := range sections[si].Entries {
			c, ok := ChannelOf(e.Name)
			switch {
			case !ok:
				p.errs = append(p.errs, &Error{File: p.path, Line: e.Line, Col: e.Col, Kind: KindChannel,
					Message: fmt.Sprintf("%s is not a channel the filter cannot see (%s): list it under syscalls", e.Name, channelNames())})
				continue
			case c.Listener:
				p.errs = append(p.errs, &Error{File: p.path, Line: e.Line, Col: e.Col, Kind: KindChannel,
					Message: fmt.Sprintf("%s with a listener cannot be unmonitored: the run's own listener makes the kernel refuse a second one (EBUSY); "+
						"list seccomp under syscalls for filters without a listener", e.Name)})
				continue
			case e.Reason == "":
				// A risky entry without a reason is reported by entry().
				if !risk.Of(e.Name).Risky() {
					p.errs = append(p.errs, &Error{File: p.path, Line: e.Line, Col: e.Col, Kind: KindChannel,
						Message: fmt.Sprintf("unmonitored %s needs a reason: say why the agent needs what the gate cannot see", e.Name)})
				}
				continue
			}
			kept = append(kept, e)
		}
		sections[si].Entries = kept
	}
	return sections
}

func channelNames() string {
	var names []string
	for _, c := range Channels {
		if !c.Listener {
			names = append(names, c.Syscall)
		}
	}
	return "these are: " + strings.Join(names, ", ")
}

// unixErrnoName is "ENOSYS" for unix.ENOSYS.
func unixErrnoName(e unix.Errno) string {
	if name := unix.ErrnoName(e); name != "" {
		return name
	}
	return e.Error()
}

// classExample is a class of name to show in messages.
func classExample(arch scmp.Arch, name string) string {
	if known := argclass.KnownClasses(arch, name); len(known) > 0 {
		for _, k := range []string{"AF_UNIX", "read", "none", "W^X", "PR_SET_NAME", "TCGETS", "PER_LINUX", "PTRACE_TRACEME"} {
			if key, err := argclass.CanonicalKey(arch, argclass.ClassKey(name, k)); err == nil {
				return key
			}
		}
		return argclass.ClassKey(name, known[0])
	}
	return name
}

// blindClash finds an entry of names that key's syscall overlaps: the
// argument-blind entry when key is a class, any class when key is blind.
func blindClash(names map[string]int, key string) (string, int, bool) {
	name, class := argclass.SplitKey(key)
	if class != "" {
		line, ok := names[name]
		return name, line, ok
	}
	for other, line := range names {
		if o, c := argclass.SplitKey(other); c != "" && o == name {
			return other, line, true
		}
	}
	return "", 0, false
}
