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
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/gitshow"
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
	w, err := widening(commit, sel, cmd, files)
	var und *undecidedError
	if errors.As(err, &und) {
		return c.errorf(ExitInconclusive, "baseline diff --base: cannot tell which layers the run loads, so the widening cannot be judged:\n%s",
			strings.Join(und.why, "\n"))
	}
	if err != nil {
		c.printFindings(err)
		return ExitUsage
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

// undecidedError: the diff cannot tell which layers the run loads (why:
// each entry, with the fix).
type undecidedError struct{ why []string }

func (e *undecidedError) Error() string { return strings.Join(e.why, "; ") }

// widening compares each file's stack at the commit and in the working
// tree, every file it reaches (extends chains and the layers the run of
// cmd picks, wherever they lie). A file the commit lacks allowed nothing
// there. An entry reached through several files (a shared runtime base)
// is listed once. A layer the run's selection cannot be told for is an
// undecidedError on either side.
func widening(commit *gitshow.Commit, sel baseline.Selector, cmd runCommand, files []string) (*ci.Widening, error) {
	w := &ci.Widening{Rel: func(file string) string {
		if rel, err := commit.Rel(file); err == nil {
			return rel
		}
		return file
	}}
	var why []string
	for _, f := range files {
		cur, err := baseline.LoadStackPartial(nil, sel, f)
		if err != nil {
			return nil, err
		}
		base, err := baseline.LoadStackPartial(commit.Read, sel, f)
		if errors.Is(err, fs.ErrNotExist) {
			base = nil
		} else if err != nil {
			return nil, fmt.Errorf("at %s: %w", commit.SHA()[:12], err)
		}
		for _, u := range append(undecided(cur, cmd), undecided(base, cmd)...) {
			if !slices.Contains(why, u) {
				why = append(why, u)
			}
		}
		for _, e := range baseline.Widen(base, cur) {
			if !slices.Contains(w.Entries, e) {
				w.Entries = append(w.Entries, e)
			}
		}
	}
	if len(why) > 0 {
		return nil, &undecidedError{why}
	}
	// GitHub reads CODEOWNERS from the base branch: so does this, so the
	// pull request cannot name its own reviewers.
	for _, p := range ci.CodeownersPaths {
		if data, err := commit.ReadTop(p, p); err == nil {
			w.Owners = ci.ParseCodeowners(data)
			break
		}
	}
	return w, nil
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
