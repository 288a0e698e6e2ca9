package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

// A command the launcher cannot find is a usage error naming the command
// and the PATH it was looked for in (TestRunVerbErrors runs the real
// launcher); any other failure to start stays inconclusive.
func TestCommandNotFoundIsUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code int
		want string
	}{
		{"misspelt", os.NewSyscallError(kernel.StepFindAgent, syscall.ENOENT), ExitUsage,
			"sysgate: command not found: pyhton3: no executable of that name in the agent's PATH=/opt/bin:/usr/bin; check the spelling"},
		{"not executable", os.NewSyscallError(kernel.StepFindAgent, syscall.EACCES), ExitInconclusive, "agent could not be started"},
		{"exec failed", os.NewSyscallError("execve", syscall.ENOENT), ExitInconclusive, "agent could not be started"},
	} {
		old := runHarness
		runHarness = func(_ context.Context, a harness.Agent, _ ...harness.Option) (*verdict.Result, error) {
			return nil, fmt.Errorf("%w: %s: %w", harness.ErrAgentStart, a.Command[0], tc.err)
		}
		var c Command
		var stderr strings.Builder
		c.Stderr, c.Env = &stderr, []string{"PATH=/opt/bin:/usr/bin"}
		code := c.Main([]string{"sysgate", "check", "-b", programsBaseline, "--", "pyhton3", "agent.py"})
		runHarness = old
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, want %d; stderr %q, want %q", tc.name, code, tc.code, stderr.String(), tc.want)
		}
	}
}
