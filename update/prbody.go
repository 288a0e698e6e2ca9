package update

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// PRBodyOptions add context to a pull-request body.
type PRBodyOptions struct {
	// RunURL links the workflow run that recorded the observations.
	RunURL string
	// BaselineDir is what the reviewer's commands diff ("" = the files).
	BaselineDir string
	// Reproduce are the commands that record the baselines again where
	// the caller's users run them (sysgate's own: make baseline-update),
	// shown before the diff; none by default: only the caller knows its
	// build.
	Reproduce []string
}

// WritePRBody renders the body of a baseline-update pull request: risky
// additions first (each syscall needs a reason; each program a look),
// then runtime-base changes apart from agent changes, syscalls per arch
// and programs, then how to reproduce it locally.
func (u *Update) WritePRBody(w io.Writer, opts PRBodyOptions) error {
	var b strings.Builder
	b.WriteString("## sysgate baseline update\n\n")
	u.writePRSummary(&b, opts.RunURL)
	u.writeRiskyAdditions(&b)
	u.writeRiskyNetwork(&b)
	u.writeFileChanges(&b)
	u.writeSkipped(&b)
	u.writeReproduce(&b, opts)
	_, err := io.WriteString(w, b.String())
	return err
}

// writePRSummary says where the update was recorded and how many files
// change.
func (u *Update) writePRSummary(b *strings.Builder, runURL string) {
	var arches []string
	for _, a := range u.Arches {
		arches = append(arches, a.String())
	}
	changed := 0
	for _, f := range u.Files {
		if f.Changed() {
			changed++
		}
	}
	fmt.Fprintf(b, "Recorded on %s", ci.OrDash(strings.Join(arches, ", ")))
	if runURL != "" {
		fmt.Fprintf(b, " by [this workflow run](%s)", runURL)
	}
	fmt.Fprintf(b, ": %d of %s change.\n\n", changed, ci.Count(len(u.Files), "baseline file", "baseline files"))
	if u.Incremental {
		b.WriteString("**Stale entries not checked (incremental).** The runs allowed the committed baselines in the kernel and logged only what they lack, so this update only adds: an entry the agents no longer use stays until a full record (the scheduled run, or a record without --against).\n\n")
	}
	if changed == 0 {
		b.WriteString("The baselines already match what the suites do.\n\n")
	}
}

// writeRiskyAdditions lists the risky syscalls and programs the update
// adds, first, because each needs a reviewer's reason or look.
func (u *Update) writeRiskyAdditions(b *strings.Builder) {
	if risky := riskyAdded(u, func(f FileChange) []baseline.Finding { return f.Added },
		func(f baseline.Finding) risk.Class { return f.Risk }); len(risky) > 0 {
		b.WriteString("### ⚠️ Risky syscalls: a reason is required\n\n")
		fmt.Fprintf(b, "Each was written with the placeholder reason `%s`. Replace it with why the agent needs the syscall, or fix the agent and drop the line; `sysgate baseline validate` warns until then.\n\n", baseline.UnreviewedReason)
		b.WriteString("| Agent | Arch | Syscall | Risk | Why it is risky | Line |\n|---|---|---|---|---|---|\n")
		for _, r := range risky {
			f := r.item
			fmt.Fprintf(b, "| %s | %s | %s | **%s** | %s | %s |\n", untrusted.Markdown(r.agent), f.Arch, untrusted.MarkdownCellCode(f.Syscall), untrusted.Markdown(f.RiskLabel()),
				untrusted.Markdown(risk.Reason(f.Syscall)), ci.Location(f.File, f.Line))
		}
		b.WriteString("\n")
	}
	if risky := riskyAdded(u, func(f FileChange) []baseline.ProgramFinding { return f.AddedPrograms },
		func(p baseline.ProgramFinding) risk.Class { return p.Risk }); len(risky) > 0 {
		b.WriteString("### ⚠️ Risky programs\n\nShells, downloaders and compilers let the agent do what its baseline does not show. Confirm the agent should run each one, or fix the agent and drop the line.\n\n")
		for _, r := range risky {
			fmt.Fprintf(b, "- %s: %s\n", untrusted.Markdown(r.agent), programChange(r.item, true))
		}
		b.WriteString("\n")
	}
}

// writeFileChanges lists the changed files, runtime bases apart from
// agents: syscalls per arch, new argument classes and programs.
func (u *Update) writeFileChanges(b *strings.Builder) {
	for _, section := range []struct {
		title string
		base  bool
		note  string
	}{
		{"Runtime bases", true, "Shared by every agent that extends them: one runtime update is one diff here."},
		{"Agents", false, ""},
	} {
		var files []FileChange
		for _, f := range u.Files {
			if f.RuntimeBase == section.base && f.Changed() {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			continue
		}
		fmt.Fprintf(b, "### %s\n\n", section.title)
		if section.note != "" {
			b.WriteString(section.note + "\n\n")
		}
		for _, f := range files {
			fmt.Fprintf(b, "#### %s (%s, %s)\n\n", untrusted.Markdown(f.Agent), untrusted.MarkdownCode(f.File), ci.Count(f.Runs, "run", "runs"))
			if len(f.Added)+len(f.Removed) > 0 {
				b.WriteString("| Arch | Added | Removed |\n|---|---|---|\n")
				for _, arch := range findingArches(f.Added, f.Removed) {
					fmt.Fprintf(b, "| %s | %s | %s |\n", arch, names(f.Added, arch), names(f.Removed, arch))
				}
				b.WriteString("\n")
			}
			writeNewClasses(b, f)
			writeProgramChanges(b, f)
			writeFilesChanges(b, f)
			writeNetworkChanges(b, f)
			writeRare(b, f)
		}
	}
}

// writeSkipped lists the observed syscall numbers no baseline can allow.
func (u *Update) writeSkipped(b *strings.Builder) {
	var skipped []string
	for _, f := range u.Files {
		for _, s := range f.Skipped {
			skipped = append(skipped, fmt.Sprintf("%s: %s number %s", f.Agent, s.Arch, s.Syscall))
		}
	}
	if len(skipped) > 0 {
		b.WriteString("### Not written\n\nlibseccomp cannot name these syscall numbers, so no baseline can allow them: they stay violations.\n\n")
		for _, s := range skipped {
			fmt.Fprintf(b, "- %s\n", s)
		}
		b.WriteString("\n")
	}
}

// writeReproduce gives the reviewer the caller's commands to record again
// and the commands that diff and validate the result.
func (u *Update) writeReproduce(b *strings.Builder, opts PRBodyOptions) {
	dir := opts.BaselineDir
	if dir == "" {
		var files []string
		for _, f := range u.Files {
			files = append(files, f.File)
		}
		dir = strings.Join(files, " ")
	}
	var changedFiles []string
	for _, f := range u.Files {
		if f.Changed() {
			changedFiles = append(changedFiles, f.File)
		}
	}
	b.WriteString("### Reproduce locally\n\n```sh\n")
	for _, c := range opts.Reproduce {
		b.WriteString(c + "\n")
	}
	fmt.Fprintf(b, "git diff -- %s\n", dir)
	if len(changedFiles) > 0 {
		fmt.Fprintf(b, "sysgate baseline validate --strict %s   # fails until every risky entry has a real reason\n", strings.Join(changedFiles, " "))
	}
	b.WriteString("```\n")
}

// agentFinding is a finding of one agent's file.
type agentFinding[T any] struct {
	agent string
	item  T
}

// riskyAdded lists the risky ones of the files' additions (added picks a
// file's syscalls or programs).
func riskyAdded[T any](u *Update, added func(FileChange) []T, classOf func(T) risk.Class) []agentFinding[T] {
	var out []agentFinding[T]
	for _, f := range u.Files {
		for _, a := range added(f) {
			if classOf(a).Risky() {
				out = append(out, agentFinding[T]{f.Agent, a})
			}
		}
	}
	return out
}

// findingArches lists the arches in the findings, in order of first use
// (the findings are sorted by arch).
func findingArches(lists ...[]baseline.Finding) []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range lists {
		for _, f := range list {
			if a := f.Arch.String(); !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	slices.Sort(out)
	return out
}

// writeNewClasses lists a file's added argument classes of syscalls it
// allowed other classes of: a reviewer weighs "openat may now create
// files" apart from a syscall the agent never made.
func writeNewClasses(b *strings.Builder, f FileChange) {
	listed := false
	for _, a := range f.Added {
		if had := f.HadClasses[a.Arch][a.Syscall]; len(had) > 0 {
			fmt.Fprintf(b, "- %s %s: %s\n", a.Arch, untrusted.MarkdownCode(a.Syscall), untrusted.Markdown(NewClassNote(a.Syscall, had)))
			listed = true
		}
	}
	if listed {
		b.WriteString("\n")
	}
}

// NewClassNote says that key is a new argument class of a syscall that
// had other classes: "new class of openat; the baseline had openat(read)".
func NewClassNote(key string, had []string) string {
	return fmt.Sprintf("new class of %s; the baseline had %s", argclass.SyscallOf(key), strings.Join(had, ", "))
}

// names renders one arch's syscalls of a list, risky ones tagged.
func names(list []baseline.Finding, arch string) string {
	var out []string
	for _, f := range list {
		if f.Arch.String() != arch {
			continue
		}
		s := untrusted.MarkdownCellCode(f.Syscall)
		if f.Risk.Risky() {
			s += " **(" + untrusted.Markdown(f.RiskLabel()) + ")**"
		}
		out = append(out, s)
	}
	return ci.OrDash(strings.Join(out, ", "))
}

// writeFilesChanges lists a file's added and removed files entries,
// sensitive ones marked: each widens what the agent may touch.
func writeFilesChanges(b *strings.Builder, f FileChange) {
	if len(f.AddedFiles)+len(f.RemovedFiles) == 0 {
		return
	}
	b.WriteString("Files:\n\n")
	for _, e := range f.AddedFiles {
		s := fmt.Sprintf("new %s %s", e.Op, untrusted.MarkdownCode(e.Path))
		if e.Sensitive != "" {
			s += " **(sensitive: " + untrusted.Markdown(e.Sensitive) + ", " + untrusted.Markdown(string(e.Level)) + "; give it a reason)**"
		}
		if e.Covers != "" {
			s += " **(" + untrusted.Markdown(e.Covers) + ": reached only once a person gives it a reason)**"
		}
		fmt.Fprintf(b, "- %s\n", s)
	}
	for _, e := range f.RemovedFiles {
		fmt.Fprintf(b, "- removed %s %s: no run needed it\n", e.Op, untrusted.MarkdownCode(e.Path))
	}
	b.WriteString("\n")
}

// writeProgramChanges lists a file's added and removed programs.
func writeProgramChanges(b *strings.Builder, f FileChange) {
	if len(f.AddedPrograms)+len(f.RemovedPrograms)+len(f.PinChanges) == 0 {
		return
	}
	b.WriteString("Programs:\n\n")
	for _, p := range f.AddedPrograms {
		fmt.Fprintf(b, "- %s\n", programChange(p, true))
	}
	for _, p := range f.RemovedPrograms {
		fmt.Fprintf(b, "- %s\n", programChange(p, false))
	}
	for _, c := range f.PinChanges {
		fmt.Fprintf(b, "- program %s\n", untrusted.Markdown(c.String()))
	}
	b.WriteString("\n")
}

// programChange is "new program `/usr/bin/curl` **(downloader, high)**,
// run 3 times", or "removed program `/usr/bin/wget`: no run ran it".
func programChange(p baseline.ProgramFinding, added bool) string {
	s := untrusted.MarkdownCode(p.Program)
	if p.Risk.Risky() {
		s += " **(" + untrusted.Markdown(p.Risk.Label(p.Level)) + ")**"
	}
	if !added {
		return "removed program " + s + ": no run ran it"
	}
	s = "new program " + s
	if p.Count > 0 {
		s += ", run " + ci.Times(p.Count)
	}
	return s
}

// writeRare lists the entries of a file only some runs needed: what a
// recording of fewer runs would have missed, and where a check may meet
// something new.
func writeRare(b *strings.Builder, f FileChange) {
	if len(f.Rare) == 0 {
		return
	}
	b.WriteString("Seen in only some runs (what fewer runs would have missed; lines added now say so in a comment):\n\n")
	for _, r := range f.Rare {
		fmt.Fprintf(b, "- %s: %d of %d runs\n", untrusted.MarkdownCellCode(r.Entry), r.Seen, r.Runs)
	}
	b.WriteString("\n")
}
