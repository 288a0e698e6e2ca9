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
	failed, passed := runBitesWith(t, "SYSGATE_NO_ARG_CLASSES=1")
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

// The program bite specs catch only what the program gate sees: with
// program observation switched off each of them fails, loudly, while the
// other bite specs still pass.
func TestProgramBitesFailWithoutPrograms(t *testing.T) {
	failed, passed := runBitesWith(t, "SYSGATE_NO_PROGRAMS=1")
	for _, want := range []string{"runs curl where its baseline lists only its own download tool", "a tool call spawns /bin/sh -c"} {
		if !slices.ContainsFunc(failed, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("the program bite %q did not fail without programs; failed: %q", want, failed)
		}
	}
	if len(failed) != 2 {
		t.Errorf("want exactly the 2 program bites to fail, got %q", failed)
	}
	if len(passed) < 5 {
		t.Errorf("the other bites should still pass: %q", passed)
	}
}

// runBitesWith runs the Python and MCP suites' bite specs with env set,
// expecting some to fail, and returns the specs that failed and passed.
func runBitesWith(t *testing.T, env string) (failed, passed []string) {
	t.Helper()
	testutil.RequireAudit(t)
	root := filepath.Dir(fixture.SuitesDir())
	var reports []types.Report
	for _, suite := range []string{"python", "mcp"} {
		report := filepath.Join(t.TempDir(), suite+".json")
		cmd := exec.Command("go", "test", "-count=1", "./suites/"+suite,
			"-ginkgo.label-filter=bite", "-ginkgo.json-report="+report)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("the %s bite specs passed with %s:\n%s", suite, env, out)
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
	return failed, passed
}
