// Command writebaselines turns the observations of a record run of the
// suites (SYSGATE_RECORD=1: one <agent>.json per agent under -observations)
// back into the committed baseline files under -baselines, matched by
// their agent key, and prints what changed: new and removed syscalls per
// arch, with risk tags. scripts/security-test.sh --record runs it.
//
// Runtime bases (files other files extend) are written first: an agent
// file lists only what its bases do not, so it must be computed against
// the new bases. Files are rewritten in the canonical layout with their
// reasons, comments, extends and groups kept. Entries this recording did
// not see stay (-merge, the default), so a local update never drops a rare
// path that an earlier recording saw; the CI baseline-update pull request
// (sysgate report pr-body) proposes stale entries for removal instead.
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/baseline"
)

func main() {
	obsDir := flag.String("observations", "out/observations", "directory of recorded observations (<agent>.json)")
	baseDir := flag.String("baselines", "suites/baselines", "directory of the committed baselines")
	merge := flag.Bool("merge", true, "keep baseline entries this recording did not see")
	flag.Parse()
	if err := run(os.Stdout, *obsDir, *baseDir, *merge); err != nil {
		fmt.Fprintln(os.Stderr, "writebaselines:", err)
		os.Exit(1)
	}
}

// target is one baseline file and whether other files extend it.
type target struct {
	path string
	base bool
}

func run(w io.Writer, obsDir, baseDir string, merge bool) error {
	files, err := baselineFiles(baseDir)
	if err != nil {
		return err
	}
	paths, err := filepath.Glob(filepath.Join(obsDir, "*.json"))
	if err != nil || len(paths) == 0 {
		return fmt.Errorf("no observations in %s: did the record run run any spec?", obsDir)
	}
	type job struct {
		obs *baseline.Observation
		target
	}
	var jobs []job
	for _, p := range paths {
		obs, err := baseline.ReadObservation(p)
		if err != nil {
			return err
		}
		t, ok := files[obs.Agent]
		if !ok {
			return fmt.Errorf("%s: no baseline file under %s has agent: %s (create it with its agent and extends keys; record fills in the syscalls)", p, baseDir, obs.Agent)
		}
		jobs = append(jobs, job{obs, t})
	}
	sort.SliceStable(jobs, func(i, j int) bool {
		if jobs[i].base != jobs[j].base {
			return jobs[i].base
		}
		return jobs[i].path < jobs[j].path
	})
	changed := 0
	for _, j := range jobs {
		res, err := baseline.WriteRecorded(j.path, j.obs, baseline.RecordOptions{Agent: j.obs.Agent, Merge: merge})
		if err != nil {
			return err
		}
		changed += report(w, j.path, j.obs.Runs, res)
	}
	if changed == 0 {
		fmt.Fprintln(w, "baselines unchanged")
	}
	return nil
}

// baselineFiles maps agent keys to files, marking the runtime bases.
func baselineFiles(dir string) (map[string]target, error) {
	docs := map[string]*baseline.Document{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		doc, err := baseline.ParseDocument(path, data)
		docs[filepath.Clean(path)] = doc
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read baselines: %w", err)
	}
	extended := map[string]bool{}
	for path, doc := range docs {
		for _, ref := range doc.Extends {
			extended[filepath.Clean(filepath.Join(filepath.Dir(path), ref.Path))] = true
		}
	}
	files := map[string]target{}
	for path, doc := range docs {
		if doc.Agent != "" {
			files[doc.Agent] = target{path: path, base: extended[path]}
		}
	}
	return files, nil
}

// report prints one file's changes and returns how many lines changed.
func report(w io.Writer, path string, runs int, res *baseline.RecordResult) int {
	n := len(res.Added) + len(res.Removed)
	if n == 0 && len(res.Skipped) == 0 {
		return 0
	}
	fmt.Fprintf(w, "%s (%d runs recorded):\n", path, runs)
	for _, f := range res.Added {
		fmt.Fprintf(w, "  + %-8s %s%s\n", f.Arch, f.Syscall, risk(f))
	}
	for _, f := range res.Removed {
		fmt.Fprintf(w, "  - %-8s %s%s\n", f.Arch, f.Syscall, risk(f))
	}
	for _, f := range res.Skipped {
		fmt.Fprintf(w, "  ! %-8s %s: libseccomp cannot name it, so it stays a violation\n", f.Arch, f.Syscall)
	}
	return n
}

func risk(f baseline.Finding) string {
	if f.Risk.Risky() {
		return fmt.Sprintf("  [risky: %s]", f.Risk)
	}
	return ""
}
