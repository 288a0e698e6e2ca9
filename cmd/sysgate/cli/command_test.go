package cli

import (
	"bytes"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &Command{Stdout: &out, Stderr: &errb}
	code = c.Main(append([]string{"sysgate"}, args...))
	return code, out.String(), errb.String()
}

func TestUnknownCommandIsUsageError(t *testing.T) {
	code, _, stderr := run(t, "frobnicate")
	if code != ExitUsage || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := run(t, "version")
	if code != ExitOK || !strings.HasPrefix(stdout, "sysgate ") {
		t.Fatalf("code %d stdout %q", code, stdout)
	}
}

func TestBadFlagIsUsageError(t *testing.T) {
	code, _, stderr := run(t, "version", "--nope")
	if code != ExitUsage || !strings.Contains(stderr, "nope") {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
}
