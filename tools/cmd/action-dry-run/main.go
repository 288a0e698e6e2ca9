// Command action-dry-run runs sysgate's GitHub Action (action.yml) on this
// machine as GitHub's runner would, for an agent's repository and the
// action's inputs: scripts/action-dry-run.sh builds and runs it (see the
// usage there). It exits with the job's result: 0 when every step
// passed, else the exit code of the first step that failed; 125 when the
// dry run itself could not go on (a bad flag or input, an expression or
// action it does not simulate).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sysgate/sysgate/tools/internal/actionrun"
)

// exitDryRun is the dry run's own failure: never a step's exit code that
// a verdict could be read from.
const exitDryRun = 125

type pairs map[string]string

func (p pairs) String() string { return fmt.Sprint(map[string]string(p)) }

func (p pairs) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	if _, dup := p[k]; dup {
		return fmt.Errorf("%s given twice", k)
	}
	p[k] = v
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("action-dry-run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	actionDir := fs.String("action", ".", "the action's checkout: the directory holding action.yml (GITHUB_ACTION_PATH)")
	dir := fs.String("dir", "", "the agent's repository (required): copied, with its .git and uncommitted changes, to OUT/workspace, the job's checkout (GITHUB_WORKSPACE), so the run writes nothing in DIR")
	inPlace := fs.Bool("in-place", false, "run in --dir itself, as the job's checkout: record's baseline files and the reports directory are then written there (to chain a record and a check on one tree)")
	out := fs.String("out", "", "where the runner's temp, the artifacts, logs, the step summary and dry-run.json go (default: a new directory under $TMPDIR)")
	cacheDir := fs.String("cache-dir", "", "actions/cache's store, kept across dry runs (default: $XDG_CACHE_HOME/sysgate/action-dry-run)")
	toolCache := fs.String("tool-cache", "", "RUNNER_TOOL_CACHE (default: empty, under --out, as on a fresh hosted runner)")
	runnerOS := fs.String("runner-os", "Linux", "runner.os and RUNNER_OS the steps see (Linux, macOS or Windows); the steps still run here")
	event := fs.String("event", "", "the event's payload, a JSON file: github.event and GITHUB_EVENT_PATH (a pull_request's pull_request.base.sha); default {}")
	inputs, github := pairs{}, pairs{}
	fs.Var(inputs, "input", "an input of the action, NAME=VALUE (repeatable); the others get action.yml's defaults")
	fs.Var(github, "github", "a github context value, KEY=VALUE (job, repository, run_id, action_ref, action_repository, api_url, server_url, token, event_name)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: action-dry-run --dir AGENT_REPO [--input NAME=VALUE]... [--out DIR] [--cache-dir DIR] [--tool-cache DIR] [--action DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitDryRun
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "action-dry-run: "+format+"\n", a...)
		return exitDryRun
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q (inputs are --input NAME=VALUE)", fs.Arg(0))
	}
	if *dir == "" {
		return fail("--dir is required: the agent's repository, as the job's checkout")
	}
	for k := range github {
		if err := actionrun.CheckGithub(k); err != nil {
			return fail("--github %s", err)
		}
	}
	action, err := actionrun.LoadAction(filepath.Join(*actionDir, "action.yml"))
	if err != nil {
		return fail("%v (--action names the directory holding action.yml)", err)
	}
	if *out == "" {
		if *out, err = os.MkdirTemp("", "sysgate-action-dry-run-"); err != nil {
			return fail("%v", err)
		}
	} else if err := os.MkdirAll(*out, 0o755); err != nil {
		return fail("--out: %v", err)
	}
	if *cacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return fail("no cache directory (%v): give --cache-dir", err)
		}
		*cacheDir = filepath.Join(base, "sysgate", "action-dry-run")
	}
	workspace := *dir
	if !*inPlace {
		if workspace, err = checkoutCopy(*dir, *out); err != nil {
			return fail("%v", err)
		}
	}
	cfg := actionrun.Config{
		Action:    action,
		ActionDir: *actionDir,
		Workspace: workspace,
		Inputs:    inputs,
		OutDir:    *out,
		ToolCache: *toolCache,
		CacheDir:  *cacheDir,
		Github:    github,
		Event:     *event,
		Env:       os.Environ(),
		RunnerOS:  *runnerOS,
		Stdout:    stdout,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stdout, "action dry run: %s in %s (output in %s)\n", action.Path, workspace, *out)
	res, err := actionrun.Run(ctx, cfg)
	if res != nil {
		if jerr := res.WriteJSON(filepath.Join(*out, "dry-run.json")); jerr != nil {
			fmt.Fprintf(stderr, "action-dry-run: %v\n", jerr)
		}
	}
	if err != nil {
		return fail("%v", err)
	}
	res.Print(stdout)
	return res.ExitCode
}

// checkoutCopy copies the agent's repository dir, as it is (its .git,
// uncommitted changes, modes and symlinks), to out/workspace, the job's
// checkout: what the action writes there (a recorded baseline, the
// reports directory) stays out of the user's tree, as it stays on the
// runner.
func checkoutCopy(dir, out string) (string, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("--dir %s: not a directory (%v)", dir, err)
	}
	ws := filepath.Join(out, "workspace")
	if _, err := os.Lstat(ws); err == nil {
		return "", fmt.Errorf("%s exists: give a new --out, or --in-place to run in --dir", ws)
	}
	if b, err := exec.Command("cp", "-a", "--", filepath.Clean(dir)+"/.", ws).CombinedOutput(); err != nil {
		return "", fmt.Errorf("copying --dir %s to %s: %v: %s", dir, ws, err, b)
	}
	return ws, nil
}
