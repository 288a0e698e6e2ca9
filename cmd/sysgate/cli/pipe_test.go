package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// closedStdout is a pipe whose reader is gone, as stdout is in
// "sysgate report annotations | head" once head has its lines: every
// write fails with EPIPE (it is not fd 1, so the runtime raises no
// SIGPIPE, as main's signal.Ignore makes it for fd 1).
func closedStdout(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}

// Every verb that writes to stdout exits quietly when its reader has gone:
// no "write /dev/stdout: broken pipe" in the middle of the pipeline's
// output, and the exit code it would have had with a reader.
func TestClosedStdoutIsQuiet(t *testing.T) {
	res := &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64,
		Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "bpf", Count: 2, Risk: risk.KernelObserve,
			PID: 9, Exe: "/usr/bin/python3", Comm: "python3", File: "/repo/b/py.yaml", Line: 4}}}
	report := ginkgoReport(t, res)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"report", "annotations", report}, ExitOK},
		{[]string{"report", "summary", report}, ExitOK},
		{[]string{"report", "sarif", report}, ExitOK},
		{[]string{"report", "summary", "--exit-code", report}, ExitViolation},
		{[]string{"version"}, ExitOK},
		{[]string{"--version"}, ExitOK},
		{[]string{"help", "check"}, ExitOK},
		{[]string{"baseline", "diff", td + "base.yaml", td + "agent.yaml"}, ExitViolation},
		{[]string{"baseline", "validate", td + "unreviewed.yaml"}, ExitOK},
		{[]string{"baseline", "fmt", td + "unformatted.yaml"}, ExitOK},
		{[]string{"export", "oci", "-b", td + "agent.yaml"}, ExitOK},
	} {
		var stderr bytes.Buffer
		c := &Command{Stdout: closedStdout(t), Stderr: &stderr}
		code := c.Main(append([]string{"sysgate"}, tc.args...))
		if code != tc.code || strings.Contains(stderr.String(), "broken pipe") {
			t.Errorf("%v | (closed): exit %d, want %d; stderr %q", tc.args, code, tc.code, stderr.String())
		}
	}
	// check's verdict outlives its report: a violation still exits 1.
	fakeRun(t, programsResult(baseline.ModeCheck))
	var stderr bytes.Buffer
	c := &Command{Stdout: closedStdout(t), Stderr: &stderr}
	if code := c.Main([]string{"sysgate", "check", "-b", programsBaseline, "--", "python3", "agent.py"}); code != ExitViolation ||
		strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("check | (closed): exit %d, want %d; stderr %q", code, ExitViolation, stderr.String())
	}
}
