package update

import (
	"fmt"
	"io"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// WideningTitle heads the section every report gives a pull request whose
// baselines allow more than its base's.
const WideningTitle = "This pull request widens the baseline"

// Widening is what a pull request's baselines allow that its base
// commit's did not (baseline.Widen), with who must review each file.
type Widening struct {
	Base    string // the base commit, as given or resolved
	Entries []baseline.Widened
	// Owners: the CODEOWNERS of the base commit, nil without one; Rel
	// turns an entry's file into the path CODEOWNERS matches.
	Owners *Codeowners
	Rel    func(file string) string
}

// reviewers names who must review file: its code owners at the base, or
// what to do when there are none.
func (w *Widening) reviewers(file string) []string {
	if w.Owners == nil || file == "" {
		return nil
	}
	rel := file
	if w.Rel != nil {
		rel = w.Rel(file)
	}
	return w.Owners.Owners(rel)
}

func (w *Widening) entryText(e baseline.Widened) string {
	var b strings.Builder
	switch e.Kind {
	case baseline.WidenSyscall:
		fmt.Fprintf(&b, "%s %s", e.Arch, untrusted.Terminal(e.Syscall))
		if e.Group != "" {
			fmt.Fprintf(&b, " (group %s)", untrusted.Terminal(e.Group))
		}
	case baseline.WidenUnmonitored:
		fmt.Fprintf(&b, "%s %s left unmonitored", e.Arch, untrusted.Terminal(e.Syscall))
	case baseline.WidenProgram:
		b.WriteString("program " + untrusted.Terminal(e.Program))
		if e.Pattern {
			b.WriteString(" (pattern)")
		}
	case baseline.WidenPin:
		b.WriteString("program " + untrusted.Terminal(e.Program) + ": its content pins allow more")
	case baseline.WidenFile:
		b.WriteString("file " + untrusted.Terminal(e.Path))
	case baseline.WidenNetwork:
		b.WriteString("network " + untrusted.Terminal(e.Path))
	case baseline.WidenUngated:
		b.WriteString(ungatedSection(e) + " no longer gated")
	}
	return b.String()
}

// ungatedSection names the section a dropped gate was: baseline.Widen
// says which only in its reason ("the files section is gone: ...").
func ungatedSection(e baseline.Widened) string {
	for _, s := range []string{"files", "network"} {
		if strings.HasPrefix(e.Reason, "the "+s+" section") {
			return s
		}
	}
	return "programs"
}

func (w *Widening) riskText(e baseline.Widened) string {
	if !e.Risk.Risky() && e.Kind != baseline.WidenUnmonitored {
		return ""
	}
	label := e.RiskLabel()
	if label == "" {
		label = "unmonitored"
	}
	if e.RiskReason != "" {
		return label + ": " + e.RiskReason
	}
	return label
}

// WriteText is the section of the text report (and of sysgate baseline
// diff --base): one line per entry, file:line first.
func (w *Widening) WriteText(out io.Writer) {
	if len(w.Entries) == 0 {
		return
	}
	fmt.Fprintf(out, "%s (base %s): %s\n", WideningTitle, untrusted.Terminal(w.Base), ci.Count(uint64(len(w.Entries)), "entry", "entries"))
	for _, e := range w.Entries {
		line := "  " + untrusted.Terminal(fileLine(e.File, e.Line)) + ": " + w.entryText(e)
		if r := w.riskText(e); r != "" {
			line += " [risky: " + untrusted.Terminal(r) + "]"
		}
		if e.Reason != "" {
			line += "; reason: " + untrusted.Terminal(e.Reason)
		}
		if owners := w.reviewers(e.File); len(owners) > 0 {
			line += "; review: " + untrusted.Terminal(strings.Join(owners, " "))
		}
		fmt.Fprintln(out, line)
	}
}

// WriteMarkdown is the section of the step summary.
func (w *Widening) WriteMarkdown(out io.Writer) {
	if len(w.Entries) == 0 {
		return
	}
	fmt.Fprintf(out, "### %s\n\n", WideningTitle)
	fmt.Fprintf(out, "The baselines of this pull request allow %s that the base commit %s did not. "+
		"A pull request is judged by the baseline it brings: someone who owns the baseline files must approve each entry.\n\n",
		ci.Count(uint64(len(w.Entries)), "entry", "entries"), untrusted.MarkdownCode(w.Base))
	fmt.Fprintln(out, "| where | entry | risk | reason | review by |")
	fmt.Fprintln(out, "|---|---|---|---|---|")
	for _, e := range w.Entries {
		risk := "-"
		if r := w.riskText(e); r != "" {
			risk = "⚠️ " + untrusted.Markdown(r)
		}
		review := "no CODEOWNERS entry: add one (docs/action.md: who reviews a baseline)"
		if owners := w.reviewers(e.File); len(owners) > 0 {
			parts := make([]string, len(owners))
			for i, o := range owners {
				parts[i] = untrusted.MarkdownCellCode(o)
			}
			review = strings.Join(parts, " ")
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s |\n", ci.Location(e.File, e.Line), untrusted.Markdown(w.entryText(e)), risk, untrusted.Markdown(e.Reason), review)
	}
	fmt.Fprintln(out)
}

// Annotations puts one annotation of level on each added line.
func (w *Widening) Annotations(level string) []ci.Annotation {
	out := make([]ci.Annotation, 0, len(w.Entries))
	for _, e := range w.Entries {
		msg := w.entryText(e) + ": the base commit " + untrusted.Terminal(w.Base) + " did not allow it"
		if r := w.riskText(e); r != "" {
			msg += "; risky: " + untrusted.Terminal(r)
		}
		if e.Reason != "" {
			msg += "; reason: " + untrusted.Terminal(e.Reason)
		}
		if owners := w.reviewers(e.File); len(owners) > 0 {
			msg += "; review: " + untrusted.Terminal(strings.Join(owners, " "))
		}
		out = append(out, ci.Annotation{Level: level, File: e.File, Line: e.Line, Title: "sysgate: " + WideningTitle, Message: msg})
	}
	return out
}

// fileLine is "file:line" for text, "file" without a line.
func fileLine(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}
