package cli

import (
	"fmt"
	"io"
	"sort"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/untrusted"
)

// fileChange is a files entry (a baseline's glob, or an observation's
// path, by placeholder) on one side only.
type fileChange struct {
	op        baseline.FileOp
	path      string
	added     bool
	sensitive string // the sensitive-path row a new entry touches ("ssh key, high")
}

func (ch fileChange) isAdded() bool { return ch.added }

// filesOf are a side's files entries by "access path", and whether it
// says anything about files.
func filesOf(s *syscallSet) map[string]fileChange {
	out := map[string]fileChange{}
	for _, e := range s.files {
		out[e.op.String()+" "+e.path] = e
	}
	return out
}

// diffFiles lists the files entries only one side has; shown: either
// side has a files section (or observed files).
func diffFiles(old, cur *syscallSet) (changes []fileChange, shown bool) {
	if !old.hasFiles && !cur.hasFiles {
		return nil, false
	}
	before, after := filesOf(old), filesOf(cur)
	for k, e := range after {
		if _, ok := before[k]; !ok {
			e.added = true
			if row, ok := baseline.SensitivePath(baseline.FileContext{}, e.path, e.op); ok {
				e.sensitive = row.Label + ", " + string(row.Level)
			}
			changes = append(changes, e)
		}
	}
	for k, e := range before {
		if _, ok := after[k]; !ok {
			changes = append(changes, e)
		}
	}
	sort.Slice(changes, func(i, j int) bool {
		a, b := changes[i], changes[j]
		if a.added != b.added {
			return a.added
		}
		if a.path != b.path {
			return a.path < b.path
		}
		return a.op < b.op
	})
	return changes, true
}

func writeFilesText(w io.Writer, changes []fileChange) {
	if len(changes) > 0 {
		fmt.Fprintln(w, "files:")
	}
	for _, ch := range changes {
		line := "  " + sign(ch.added) + " " + ch.op.String() + " " + untrusted.Terminal(ch.path)
		if ch.sensitive != "" {
			line += " [sensitive: " + ch.sensitive + "]"
		}
		fmt.Fprintln(w, line)
	}
}

func writeFilesMarkdown(w io.Writer, changes []fileChange) {
	added, removed := countChanges(changes)
	fmt.Fprintf(w, "\n#### Files: %d new, %d removed\n", added, removed)
	if len(changes) == 0 {
		fmt.Fprintln(w, "\nNo change.")
		return
	}
	fmt.Fprintln(w, "\n| change | access | path | sensitive |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, ch := range changes {
		change := "removed"
		if ch.added {
			change = "**new**"
		}
		sensitive := ""
		if ch.sensitive != "" {
			sensitive = "⚠️ " + untrusted.Markdown(ch.sensitive)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", change, ch.op, untrusted.MarkdownCellCode(ch.path), sensitive)
	}
}
