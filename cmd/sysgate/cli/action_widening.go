package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/sysgate/sysgate/cmd/sysgate/cli/action"
)

var baseSHA = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// widening compares the baselines with the pull request's base commit's,
// read with git (never checked out), before the agent runs: a pull
// request is otherwise judged by the baseline it brings.
func (a *actionStep) widening() error {
	on := a.inputOr("on-widening", "warn")
	if err := action.OnWidening(on); err != nil {
		return err
	}
	event := a.getenv("GITHUB_EVENT_NAME")
	if event != "pull_request" && event != "pull_request_target" {
		if event == "" {
			event = "job without an event"
		}
		a.say("a %s, not a pull request: no base to compare the baselines with", event)
		return nil
	}
	base := a.getenv("SYSGATE_BASE_SHA")
	if !baseSHA.MatchString(base) {
		return stepErrorf(ExitUsage, "on-widening: the %s event has no pull_request.base.sha (got '%s')", event, base)
	}
	var files []string
	for _, b := range action.Fields(a.input("baselines")) {
		if _, err := os.Stat(b); err == nil {
			files = append(files, b)
		}
	}
	if len(files) == 0 {
		a.say("no baseline files to compare")
		return a.output("widened", "false")
	}
	// actions/checkout fetches one commit by default: fetch the base too.
	if exec.Command("git", "cat-file", "-e", base+"^{commit}").Run() != nil {
		fetch := exec.Command("git", "fetch", "-q", "--no-tags", "--depth=1", "origin", base)
		fetch.Stdout, fetch.Stderr = a.c.Stdout, a.c.Stderr
		if fetch.Run() != nil {
			if on == "fail" {
				return stepErrorf(ExitInconclusive, "on-widening: cannot fetch the base commit %s to compare the baselines with", base)
			}
			fmt.Fprintf(a.c.Stdout, "::warning title=sysgate::cannot fetch the base commit %s: the baselines were not compared with it\n", base)
			return nil
		}
	}
	// The layers the gate's run loads are picked by its command: the diff
	// judges those, and says it cannot (exit 3) rather than judge others.
	extra, err := action.Args(a.input("args"))
	if err != nil {
		return err
	}
	if _, err := a.passEnv(); err != nil {
		return err
	}
	sel, err := a.selection(extra)
	if err != nil {
		return err
	}
	diff := func(stdout io.Writer, more ...string) int {
		args := append(append(append([]string{"baseline", "diff", "--base", base}, sel.flags...), more...), files...)
		return a.sysgate(stdout, nil, append(args, sel.runCommand()...)...)
	}
	var text bytes.Buffer
	code := diff(&text)
	fmt.Fprintln(a.c.Stdout, strings.TrimRight(text.String(), "\n"))
	switch code {
	case ExitOK:
		return a.output("widened", "false")
	case ExitViolation:
		level := "warning"
		if on == "fail" {
			level = "error"
		}
		diff(nil, "--format", "github", "--level", level)
		var md bytes.Buffer
		diff(&md, "--format", "markdown")
		if err := a.summary(md.String()); err != nil {
			return err
		}
		return errors.Join(a.output("widened", "true"), a.output("entries", action.WideningEntries(text.String())))
	case ExitInconclusive:
		// Which layers the run loads cannot be told (a packages job's
		// layer picked by {python}, {node}, {go} or {libc}): never "no
		// widening".
		if on == "fail" {
			return stepErrorf(ExitInconclusive, "on-widening: the widening cannot be judged: the message above names the layer and the fix")
		}
		fmt.Fprintln(a.c.Stdout, "::warning title=sysgate::the widening of the baselines was not judged: the message above names the layer and the fix")
		return nil
	}
	return stepErrorf(code, "on-widening: sysgate baseline diff --base %s failed (exit %d): its message above names the file", base, code)
}
