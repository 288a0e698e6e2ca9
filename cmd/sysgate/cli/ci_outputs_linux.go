//go:build linux

package cli

import (
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// readOnly binds the outputs (and more, such as --result) read-only for
// the agent, where they exist: an earlier file stays as it was, and the
// agent cannot write $GITHUB_OUTPUT lines of its own (a "verdict=clean",
// or an open "x<<EOF" that would swallow the lines sysgate appends).
func (o *ciOutputs) readOnly(more ...string) []harness.Option {
	var opts []harness.Option
	for _, p := range append(more, o.junit, o.githubOutputPath) {
		if p != "" {
			opts = append(opts, harness.WithReadOnly(p))
		}
	}
	return opts
}

// writeRunCIOutputs writes the CI outputs of one run; f refuses a JUnit
// path the agent could tamper with, as for --result.
func (c *Command) writeRunCIOutputs(f *runFlags, o *ciOutputs, r *verdict.Result) (int, bool) {
	if o.junit == "" && !o.githubOutput {
		return ExitOK, true
	}
	if code, ok := c.checkOutputs(f, o.junit); !ok {
		return code, false
	}
	root, err := repoRoot()
	if err != nil {
		return c.errorf(ExitInconclusive, "%v", err), false
	}
	return c.writeCIOutputs(o, ci.FromResults(root, r))
}
