package cli

import (
	"bytes"
	"flag"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/safefile"
)

// ciOutputs are the files CI systems read that a run or report also
// writes: JUnit XML (--junit) and GitHub's step outputs (--github-output).
type ciOutputs struct {
	junit        string
	githubOutput bool
	// githubOutputPath is $GITHUB_OUTPUT, read at the CLI's edge.
	githubOutputPath string
}

// register adds --junit, and --github-output where withGitHubOutput.
func (o *ciOutputs) register(fs *flag.FlagSet, withGitHubOutput bool) {
	fs.StringVar(&o.junit, "junit", "", "also write JUnit XML to `FILE`: a testcase per agent run, failed on a violation or inconclusive run")
	if withGitHubOutput {
		fs.BoolVar(&o.githubOutput, "github-output", false, "append verdict=<verdict> and violations=<n> to the file $GITHUB_OUTPUT names (a GitHub Actions step's outputs)")
	}
}

// resolve reads $GITHUB_OUTPUT for --github-output before the run, so a
// job without it fails at once (exit 2) rather than after the agent ran.
func (c *Command) resolveCIOutputs(o *ciOutputs) (int, bool) {
	if !o.githubOutput {
		return ExitOK, true
	}
	o.githubOutputPath = c.getenv("GITHUB_OUTPUT")
	if o.githubOutputPath == "" {
		return c.errorf(ExitUsage, "--github-output: GITHUB_OUTPUT is not set (GitHub Actions sets it in each step)"), false
	}
	return ExitOK, true
}

// writeCIOutputs writes the JUnit file atomically and without following
// a link, and appends to $GITHUB_OUTPUT without following one either
// (safefile.OpenAppend). $GITHUB_OUTPUT is the runner's file, in a
// directory of the job's user, so it is not refused for being writable
// by the agent: that user could write it anyway.
func (c *Command) writeCIOutputs(o *ciOutputs, r *ci.Report) (int, bool) {
	if o.junit != "" {
		var b bytes.Buffer
		if err := r.WriteJUnit(&b); err != nil {
			return c.errorf(ExitInconclusive, "write --junit: %v", err), false
		}
		if err := safefile.WriteFile(o.junit, b.Bytes(), 0o644); err != nil {
			return c.errorf(ExitInconclusive, "write --junit: %v", err), false
		}
	}
	if o.githubOutput {
		f, err := safefile.OpenAppend(o.githubOutputPath, 0o644)
		if err != nil {
			return c.errorf(ExitInconclusive, "--github-output: %v", err), false
		}
		err = r.WriteGitHubOutput(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return c.errorf(ExitInconclusive, "--github-output: %v", err), false
		}
	}
	return ExitOK, true
}
