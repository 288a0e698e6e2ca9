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
