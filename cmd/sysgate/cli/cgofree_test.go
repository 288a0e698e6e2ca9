package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A reviewer without Linux runs the verbs that judge no run: sysgate
// builds without cgo (and for macOS: make portable), and the cgo-free
// build validates and diffs baselines as the ordinary build does (the
// same goldens), while the run verbs say what they need (issue 44).
func TestCgoFreeBuildValidatesAndDiffs(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sysgate")
	build := exec.Command("go", "build", "-o", bin, "./cmd/sysgate")
	build.Dir = "../../.."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}

	sysgate := func(args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	}
	code, out, _ := sysgate("baseline", "validate", td+"invalid.yaml")
	if code != ExitUsage {
		t.Errorf("validate of an invalid file: exit %d, want %d", code, ExitUsage)
	}
	goldenFile(t, "validate-invalid.out", out)
	code, out, errOut := sysgate("baseline", "diff", "--format", "text", td+"base.yaml", td+"agent.yaml")
	if code != ExitViolation {
		t.Errorf("diff: exit %d, want %d: %s", code, ExitViolation, errOut)
	}
	goldenFile(t, "diff-baselines.txt", out)

	// Without cgo there is no filter compiler: a run verb fails with
	// what it needs, never a verdict.
	code, out, errOut = sysgate("check", "-b", td+"programs.yaml", "--", "/bin/true")
	if code != ExitInconclusive || !strings.Contains(errOut, "needs Linux and cgo") || out != "" {
		t.Errorf("check without cgo: exit %d, out %q, err %q; want exit %d naming cgo", code, out, errOut, ExitInconclusive)
	}
}
