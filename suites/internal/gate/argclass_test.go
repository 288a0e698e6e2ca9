package gate_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/suites/internal/fixture"
)

// The argument-class bite specs catch only what the classes see: with the
// classes switched off each of them fails, loudly, while the bite specs
// that name a new syscall still pass.
func TestClassBitesFailWithoutArgumentClasses(t *testing.T) {
	testutil.RequireAudit(t)
	root := filepath.Dir(fixture.SuitesDir())
	var reports []types.Report
	for _, suite := range []string{"python", "mcp"} {
		report := filepath.Join(t.TempDir(), suite+".json")
		cmd := exec.Command("go", "test", "-count=1", "./suites/"+suite,
			"-ginkgo.label-filter=bite", "-ginkgo.json-report="+report)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "SYSGATE_NO_ARG_CLASSES=1")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("the %s bite specs passed without argument classes:\n%s", suite, out)
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatalf("no %s report (%v):\n%s", suite, err, out)
		}
		var rs []types.Report
		if err := json.Unmarshal(data, &rs); err != nil {
			t.Fatal(err)
		}
		reports = append(reports, rs...)
	}
	var failed, passed []string
	for _, r := range reports {
		for _, s := range r.SpecReports {
			switch {
			case s.State.Is(types.SpecStateFailed):
				failed = append(failed, s.FullText())
			case s.State.Is(types.SpecStatePassed):
				passed = append(passed, s.FullText())
			}
		}
	}
	for _, want := range []string{"talks TCP where its baseline has only Unix sockets", "makes a user namespace", "read-only session writes a file"} {
		if !slices.ContainsFunc(failed, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("the class bite %q did not fail without classes; failed: %q", want, failed)
		}
	}
	if len(failed) != 3 {
		t.Errorf("want exactly the 3 class bites to fail, got %q", failed)
	}
	if len(passed) < 3 {
		t.Errorf("the name bites should still pass: %q", passed)
	}
}
