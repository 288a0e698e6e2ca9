package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/containerprofile"
	"github.com/sysgate/sysgate/internal/capability"
)

func init() {
	register("compare", "compare a container seccomp profile (Docker's, Podman's, a team's) with what an agent needs: exit 1 when it denies a needed syscall", (*Command).runCompare)
}

// unusedShown is how many unused syscalls the text lists without --verbose.
const unusedShown = 10

// compareReport is the JSON form: the comparison, the inputs and the verdict.
type compareReport struct {
	Verdict string   `json:"verdict"` // denied, conditional or allowed
	Input   []string `json:"input"`
	*containerprofile.Comparison
}

func (c *Command) runCompare(args []string) int {
	fs := c.flagSet("compare", "")
	var files listFlag
	profile := fs.String("profile", "", "the container seccomp profile `FILE` (OCI/Docker JSON: Docker's or Podman's default, or your own)")
	fs.Var(&files, "b", "a `BASELINE` file the agent needs (repeatable; extends are followed)")
	observation := fs.String("observation", "", "an observation `FILE` the agent needs (record --observation): a record run's holds every syscall, a check run's only its violations")
	caps := fs.String("caps", "", "the capabilities the container keeps, `CAPS` as CAP_SYS_ADMIN,CAP_SYS_PTRACE: rules that include them apply (default none: an unprivileged container)")
	kernelFlag := fs.String("kernel", "", "the `VERSION` (6.1) of the kernel the profile will run on: decides rules with minKernel, else they are conditional")
	format := fs.String("format", "text", "text or json")
	verbose := fs.Bool("verbose", false, "list every syscall the profile allows and the agent does not use")
	fs.Usage = func() {
		fmt.Fprintf(c.Stderr, "Usage: sysgate compare --profile FILE (-b BASELINE... | --observation FILE) [FLAGS]\n\n%s\n\nFlags:\n", verbs["compare"].summary)
		fs.PrintDefaults()
		fmt.Fprint(c.Stderr, `
Per arch it lists the syscalls and argument classes the agent needs that the
profile denies, those it allows only under a condition compare cannot settle
(arguments of an entry without a class, an undecided kernel version), and
what the profile allows that the agent does not use. The profile is read as
Docker resolves it on the host (archMap, includes and excludes by arch,
capabilities, minKernel) and runc loads its argument rules.

Exit codes: 0 the profile allows everything the agent needs, 1 it denies a
needed syscall, 2 usage or bad input (a malformed profile names file:line:col),
3 nothing denied but something conditional.
`)
	}
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.errorf(ExitUsage, "compare: unexpected argument %q (baselines go after -b)", fs.Arg(0))
	}
	if code, ok := c.require(fs, "compare", required{"--profile FILE", *profile != ""},
		required{"-b BASELINE or --observation FILE", len(files) > 0 || *observation != ""}); !ok {
		return code
	}
	if len(files) > 0 && *observation != "" {
		return c.errorf(ExitUsage, "compare: give -b or --observation, not both")
	}
	if *format != "text" && *format != "json" {
		return c.errorf(ExitUsage, "compare: --format %q: text or json", *format)
	}
	opts := containerprofile.CompareOptions{Kernel: *kernelFlag}
	var unknown string
	if opts.Caps, unknown = compareCaps(*caps); unknown != "" {
		return c.errorf(ExitUsage, "compare: --caps: unknown capability %q (e.g. CAP_SYS_ADMIN)", unknown)
	}
	cp, err := containerprofile.ReadContainerProfile(*profile)
	if err != nil {
		return c.errorf(ExitUsage, "compare: %v", err)
	}
	for _, w := range cp.Warnings {
		fmt.Fprintf(c.Stderr, "sysgate: warning: %s\n", w)
	}
	needs, input, code, ok := c.compareNeeds(files, *observation)
	if !ok {
		return code
	}
	if len(needs) == 0 {
		return c.errorf(ExitUsage, "compare: %s lists no syscalls: nothing to compare (an observation of a clean check run is empty; record one with record --observation)", strings.Join(input, ", "))
	}
	cmp, err := containerprofile.Compare(cp, needs, opts)
	if err != nil {
		return c.errorf(ExitUsage, "compare: %v", err)
	}
	report := compareReport{Verdict: containerprofile.VerdictAllowed, Input: input, Comparison: cmp}
	code = ExitOK
	switch {
	case cmp.DeniedCount() > 0:
		report.Verdict, code = containerprofile.VerdictDenied, ExitViolation
	case cmp.ConditionalCount() > 0:
		report.Verdict, code = containerprofile.VerdictConditional, ExitInconclusive
	}
	if *format == "json" {
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(report); err != nil {
			return c.errorf(ExitInconclusive, "compare: %v", err)
		}
		return code
	}
	writeCompareText(c.Stdout, &report, *verbose)
	return code
}

// compareCaps reads --caps (CAP_SYS_ADMIN,CAP_SYS_PTRACE) as the
// capability names compare matches rules with; unknown is the first name
// that is none ("" when all are known).
func compareCaps(list string) (caps []string, unknown string) {
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		n, ok := capability.ByName(name)
		if !ok {
			return nil, name
		}
		caps = append(caps, capability.Name(n))
	}
	return caps, ""
}

// compareNeeds is what the agent needs, from its baselines (files) or an
// observation, and the inputs that said so; ok false: exit with code.
func (c *Command) compareNeeds(files []string, observation string) (needs containerprofile.Needs, input []string, code int, ok bool) {
	if len(files) > 0 {
		p, err := c.loadStack(files...)
		if err != nil {
			c.printFindings(err)
			return nil, nil, ExitUsage, false
		}
		return containerprofile.NeedsOfProfile(p), files, 0, true
	}
	o, err := baseline.ReadObservation(observation)
	if err != nil {
		return nil, nil, c.errorf(ExitUsage, "compare: %v", err), false
	}
	return containerprofile.NeedsOfObservation(o), []string{observation}, 0, true
}

func writeCompareText(w io.Writer, r *compareReport, verbose bool) {
	caps, kernelText := "none", "not given (rules with minKernel are conditional)"
	if len(r.Caps) > 0 {
		caps = strings.Join(r.Caps, ", ")
	}
	if r.Kernel != "" {
		kernelText = r.Kernel
	}
	fmt.Fprintf(w, "%s (default action %s) against %s\ncapabilities: %s; kernel: %s\n",
		r.Profile, r.DefaultAction, strings.Join(r.Input, ", "), caps, kernelText)
	for _, a := range r.Arches {
		fmt.Fprintf(w, "\n%s: %d needed: %d allowed, %d denied, %d conditional\n", a.Arch, a.Needed, a.Allowed, len(a.Denied), len(a.Conditional))
		for _, d := range a.Denied {
			fmt.Fprintf(w, "  %s [denied]\n", decisionLine(r, a.Arch.String(), d))
		}
		for _, d := range a.Conditional {
			fmt.Fprintf(w, "  %s [conditional]\n", decisionLine(r, a.Arch.String(), d))
		}
		switch {
		case !a.Covered:
		case a.DefaultAllows:
			fmt.Fprintf(w, "  the profile's default action allows every other %s syscall too\n", a.Arch)
		case len(a.Unused) > 0:
			shown, more := a.Unused, ""
			if !verbose && len(shown) > unusedShown {
				shown, more = shown[:unusedShown], fmt.Sprintf(", ... (+%d more; --verbose lists all)", len(a.Unused)-unusedShown)
			}
			fmt.Fprintf(w, "  the profile allows %d %s syscalls the agent does not use: %s%s\n", len(a.Unused), a.Arch, strings.Join(shown, ", "), more)
		}
	}
	if len(r.UnusedArches) > 0 {
		names := make([]string, len(r.UnusedArches))
		for i, a := range r.UnusedArches {
			names[i] = a.String()
		}
		fmt.Fprintf(w, "\nthe profile also lets %s calls through, which the agent does not make\n", strings.Join(names, " and "))
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	fmt.Fprintln(w)
	switch r.Verdict {
	case containerprofile.VerdictDenied:
		fmt.Fprintf(w, "DENIED: the agent needs %s the profile denies\n", countOf(r.DeniedCount(), "syscall"))
	case containerprofile.VerdictConditional:
		verb := "depend"
		if r.ConditionalCount() == 1 {
			verb = "depends"
		}
		fmt.Fprintf(w, "CONDITIONAL: nothing needed is denied, but %s %s on what compare cannot know (above)\n", countOf(r.ConditionalCount(), "syscall"), verb)
	default:
		needed := 0
		for _, a := range r.Arches {
			needed += a.Needed
		}
		fmt.Fprintf(w, "ALLOWED: the profile allows all %s the agent needs\n", countOf(needed, "syscall"))
	}
}

// decisionLine is "where: arch key: why (action, errno); allowed with ...":
// where is the baseline entry, or the observation.
func decisionLine(r *compareReport, arch string, d containerprofile.ProfileDecision) string {
	var b strings.Builder
	switch {
	case d.File != "":
		fmt.Fprintf(&b, "%s:%d: ", d.File, d.Line)
	case len(r.Input) == 1:
		fmt.Fprintf(&b, "%s: ", r.Input[0])
	}
	fmt.Fprintf(&b, "%s %s", arch, d.Syscall)
	if d.Count > 0 {
		fmt.Fprintf(&b, " (x%d)", d.Count)
	}
	b.WriteString(": " + d.Why)
	if d.Action != "" && d.Verdict == containerprofile.VerdictDenied {
		b.WriteString(" (" + d.Action)
		if d.Errno != "" {
			b.WriteString(", " + d.Errno)
		}
		b.WriteString(")")
	}
	if d.Comment != "" {
		fmt.Fprintf(&b, " %q", d.Comment)
	}
	if len(d.AllowedWith) > 0 {
		b.WriteString("; the profile allows it with " + strings.Join(d.AllowedWith, ", or with "))
	}
	return b.String()
}

// countOf is "1 syscall", "2 syscalls".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
