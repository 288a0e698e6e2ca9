package cli

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// The two halves of the reusable baseline-update workflow
// (.github/workflows/sysgate-baseline-update.yml):
//
//	collect REPORTS SHARD  a record job: put its observations, its arch and
//	                       (command mode) the baseline file it recorded into
//	                       SHARD, the artifact the update job downloads
//	open SHARDS            the update job, in the caller's checkout: merge
//	                       every shard's observations into the baselines on
//	                       the bot branch, list what a reviewer must fix,
//	                       push, and open or update the pull request
//
// Their inputs are the workflow's variables: SYSGATE_BASELINES,
// SYSGATE_PACKAGES, BASE_BRANCH, BOT_BRANCH, KEEP_UNSEEN, RUN_URL, GH_TOKEN
// (for gh) and GIT_TOKEN (for git over https: the checkout keeps no
// credential). open never force-pushes: an existing bot branch is checked
// out and the new commit goes on top of it (a reviewer's reasons and
// comments survive); if the branch moved meanwhile, the push is refused
// and so is the update, with nothing overwritten.
func init() {
	register("action baseline-pr collect", "the baseline-update workflow's record job: put its observations, arch and recorded baseline into a shard",
		prVerb("action baseline-pr collect", "REPORTS SHARD", 2, (*actionStep).prCollect))
	register("action baseline-pr open", "the baseline-update workflow's update job: merge the shards, push the bot branch, open or update the pull request",
		prVerb("action baseline-pr open", "SHARDS", 1, (*actionStep).prOpen))
}

// prVerb runs one half with its n arguments. Its errors are annotated as
// the baseline update's; a failure exits 1 unless it says otherwise.
func prVerb(path, argsUsage string, n int, step func(*actionStep, []string) error) func(*Command, []string) int {
	return func(c *Command, args []string) int {
		fs := c.flagSet(path, argsUsage)
		if code, ok := c.parse(fs, args); !ok {
			return code
		}
		if fs.NArg() != n {
			return c.errorf(ExitUsage, "usage: sysgate %s %s", path, argsUsage)
		}
		a, err := c.newActionStep()
		if err != nil {
			return c.errorf(ExitInconclusive, "%s: %v", path, err)
		}
		a.title, a.prefix = "sysgate baseline update", "baseline-pr"
		return a.finish(step(a, fs.Args()))
	}
}

func (a *actionStep) prCollect(args []string) error {
	reports, shard := args[0], args[1]
	if err := os.MkdirAll(shard, 0o755); err != nil {
		return stepErrorf(1, "%v", err)
	}
	// The arch names the list these observations update: the update job
	// passes every shard's arch as --arch, so a new arch is added on purpose.
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		return stepErrorf(1, "uname -m: %v", err)
	}
	arch := strings.TrimSpace(string(out))
	if arch == "arm64" {
		arch = "aarch64"
	}
	if err := os.WriteFile(filepath.Join(shard, "arch"), []byte(arch+"\n"), 0o644); err != nil {
		return stepErrorf(1, "%v", err)
	}
	n := 0
	if fi, err := os.Stat(filepath.Join(reports, "observations")); err == nil && fi.IsDir() {
		if n, err = copyFiles(filepath.Join(reports, "observations"), "*.json", filepath.Join(shard, "observations")); err != nil {
			return err
		}
	}
	// The reports themselves (summary, JUnit, SARIF) help whoever reads a
	// failed record run; they are small.
	if _, err := copyFiles(reports, "*", shard); err != nil {
		return err
	}
	baselines := strings.Fields(a.getenv("SYSGATE_BASELINES"))
	if a.getenv("SYSGATE_PACKAGES") == "" && len(baselines) > 0 {
		// Command mode recorded the agent's file itself: the update job
		// starts from it when the repository has none yet (a first baseline).
		last := baselines[len(baselines)-1]
		if fi, err := os.Stat(last); err == nil && fi.Mode().IsRegular() {
			if _, err := copyFile(last, filepath.Join(shard, "seed.yaml")); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(a.c.Stdout, "baseline-pr: shard %s (%s): %d observation(s)\n", shard, arch, n)
	return nil
}

// copyFiles copies the regular files of dir (not below) whose names match
// pattern into to, and returns how many.
func copyFiles(dir, pattern, to string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, stepErrorf(1, "%v", err)
	}
	n := 0
	for _, e := range entries {
		if ok, _ := filepath.Match(pattern, e.Name()); !ok || !e.Type().IsRegular() {
			continue
		}
		if err := os.MkdirAll(to, 0o755); err != nil {
			return n, stepErrorf(1, "%v", err)
		}
		if _, err := copyFile(filepath.Join(dir, e.Name()), filepath.Join(to, e.Name())); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func copyFile(from, to string) (int, error) {
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	if err != nil {
		return 0, stepErrorf(1, "%v", err)
	}
	return len(data), nil
}

// shardFiles are the files under shards that keep reports: the
// observations (…/observations/….json) and each shard's arch and seed.
func shardFiles(shards string, keep func(path string, d fs.DirEntry) bool) []string {
	var files []string
	_ = filepath.WalkDir(shards, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && keep(p, d) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// remoteGit is one git command that talks to origin, with GIT_TOKEN as
// that command's credential and no other's: nothing is written to
// .git/config, and the token stays out of the command line (the helper
// reads it from the environment), so a later step finds it nowhere.
func (a *actionStep) remoteGit(args ...string) *exec.Cmd {
	if a.getenv("GIT_TOKEN") != "" {
		args = append([]string{"-c", "credential.helper=", "-c",
			`credential.helper=!f() { test "$1" = get && printf "username=x-access-token\npassword=%s\n" "$GIT_TOKEN"; }; f`}, args...)
	}
	return a.git(args...)
}

// git is a git command in the working directory.
func (a *actionStep) git(args ...string) *exec.Cmd { return a.command("git", args...) }

// gitOutput is what a git command prints, trimmed.
func (a *actionStep) gitOutput(args ...string) (string, error) { return a.outputOf(a.git(args...)) }
