package testutil

import (
	"fmt"
	"testing"
)

type recorder struct {
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestSkipBecomesFailureUnderCI(t *testing.T) {
	t.Setenv("CI", "true")
	var r recorder
	skipOrFail(&r, "root", "needs root")
	if r.failed == "" || r.skipped != "" {
		t.Fatalf("under CI a privileged skip must fail; got skipped=%q failed=%q", r.skipped, r.failed)
	}
	t.Setenv("CI", "")
	r = recorder{}
	skipOrFail(&r, "root", "needs root")
	if r.skipped != "[root]: needs root" || r.failed != "" {
		t.Fatalf("outside CI want a tagged skip; got skipped=%q failed=%q", r.skipped, r.failed)
	}
}

func TestRequireCommand(t *testing.T) {
	t.Setenv("CI", "")
	var r recorder
	if path := RequireCommand(&r, "sh", "a shell"); path == "" || r.skipped != "" {
		t.Fatalf("sh: path %q skipped %q", path, r.skipped)
	}
	RequireCommand(&r, "no-such-tool-sysgate", "for the test")
	if r.skipped == "" || r.failed != "" {
		t.Fatalf("a missing tool must skip outside CI; got skipped=%q failed=%q", r.skipped, r.failed)
	}
}
