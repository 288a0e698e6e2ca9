package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/gitshow"
	"github.com/sysgate/sysgate/update"
)

// runBaselineDiffBase is baseline diff --base REF: what the working
// tree's baselines allow that REF's did not. Each file is loaded with what
// it extends on both sides, every layer as the run of cmd picks it; REF's
// files come from git, never a checkout. Exit 1 when the working tree
// widens, 0 when it allows the same or less, 3 when the layers the run
// loads cannot be told (never "no widening").
func (c *Command) runBaselineDiffBase(ref, format, level string, cmd runCommand, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.Stderr, "sysgate baseline diff --base: name the baseline files or directories of the working tree")
		return ExitUsage
	}
	if level != "error" && level != "warning" && level != "notice" {
		fmt.Fprintf(c.Stderr, "sysgate baseline diff: --level %q is not error, warning or notice\n", level)
		return ExitUsage
	}
	files, err := baselineFiles(args)
	if err != nil {
		c.printFindings(err)
		return ExitUsage
	}
	commit, err := gitshow.Open(filepath.Dir(files[0]), ref, baseline.MaxInputSize)
	if err != nil {
		fmt.Fprintf(c.Stderr, "sysgate: %v\n", err)
		return ExitUsage
	}
	sel, err := c.selector(cmd)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	w, undecided, err := widening(commit, sel, cmd, files, func(depends []string) []string { return c.pickChanges(commit, cmd, depends) })
	if err != nil {
		c.printFindings(err)
		return ExitUsage
	}
	if len(undecided) > 0 {
		// A widening found outranks it (exit 1), and is listed.
		c.errorf(ExitInconclusive, "baseline diff --base: cannot tell which layers the run loads, so the widening cannot be fully judged:\n%s",
			strings.Join(undecided, "\n"))
		if len(w.Entries) == 0 {
			return ExitInconclusive
		}
	}
	w.Base = ref
	if ref != commit.SHA() && !strings.HasPrefix(commit.SHA(), ref) {
		w.Base = ref + " (" + commit.SHA()[:12] + ")"
	}
	switch format {
	case "markdown":
		w.WriteMarkdown(c.Stdout)
	case "github":
		for _, a := range w.Annotations(level) {
			fmt.Fprintln(c.Stdout, a)
		}
	default:
		w.WriteText(c.Stdout)
		if len(w.Entries) == 0 {
			fmt.Fprintf(c.Stdout, "no widening: the working tree allows nothing %s did not\n", ref)
		}
	}
	if len(w.Entries) > 0 {
		return ExitViolation
	}
	return ExitOK
}

// widening compares each file's stack at the commit and in the working
// tree, every file it reaches (extends chains and the layers the run of
// cmd picks, wherever they lie). A file the commit lacks allowed nothing
// there. An entry reached through several files (a shared runtime base)
// is listed once. undecided says, with the fix, each layer whose pick
// by the run cannot be told, on either side, and each change of what
// picks it (picked: given the placeholders the layers take from the
// command): then what the run loads may widen beyond the entries.
func widening(commit *gitshow.Commit, sel baseline.Selector, cmd runCommand, files []string,
	picked func([]string) []string) (w *update.Widening, undecided []string, err error) {
	w = &update.Widening{Rel: func(file string) string {
		if rel, err := commit.Rel(file); err == nil {
			return rel
		}
		return file
	}}
	var depends []string
	for _, f := range files {
		cur, err := baseline.LoadStackPartial(nil, sel, f)
		if err != nil {
			return nil, nil, err
		}
		base, err := baseline.LoadStackPartial(commit.Read, sel, f)
		if errors.Is(err, fs.ErrNotExist) {
			base = nil
		} else if err != nil {
			return nil, nil, fmt.Errorf("at %s: %w", commit.SHA()[:12], err)
		}
		for _, u := range append(undecidedLayers(cur, cmd), undecidedLayers(base, cmd)...) {
			if !slices.Contains(undecided, u) {
				undecided = append(undecided, u)
			}
		}
		for _, l := range append(cur.Layers(), base.Layers()...) {
			for _, d := range l.Depends() {
				if !slices.Contains(depends, d) {
					depends = append(depends, d)
				}
			}
		}
		for _, e := range baseline.Widen(base, cur) {
			if !slices.Contains(w.Entries, e) {
				w.Entries = append(w.Entries, e)
			}
		}
	}
	undecided = append(undecided, picked(depends)...)
	// GitHub reads CODEOWNERS from the base branch: so does this, so the
	// pull request cannot name its own reviewers.
	for _, p := range update.CodeownersPaths {
		if data, err := commit.ReadTop(p, p); err == nil {
			w.Owners = update.ParseCodeowners(data)
			break
		}
	}
	return w, undecided, nil
}

// baselineFiles expands directories to the *.yaml files below them,
// sorted, as the action's gate does.
func baselineFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".yaml") {
				out = append(out, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no baseline files in %s", strings.Join(args, " "))
	}
	return out, nil
}
