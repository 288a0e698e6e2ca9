package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// reportBaselines copies ci's baseline fixtures (a runtime base and an
// agent extending it) into a temporary directory.
func reportBaselines(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"runtimes/node.yaml", "agents/mcp-filesystem.yaml"} {
		data, err := os.ReadFile(filepath.Join("../../../update/testdata/baselines", f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeObs(t *testing.T, agent string, arch scmp.Arch, names ...string) string {
	t.Helper()
	o := baseline.NewObservation(agent)
	o.Runs = 1
	for _, n := range names {
		o.Add(arch, n, 1)
	}
	path := filepath.Join(t.TempDir(), agent+"-"+arch.String()+".json")
	if err := baseline.WriteObservation(path, o); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReportPRBodyDryRunAndWrite(t *testing.T) {
	dir := reportBaselines(t)
	agentFile := filepath.Join(dir, "agents/mcp-filesystem.yaml")
	before, _ := os.ReadFile(agentFile)
	node := []string{"close", "exit_group", "futex", "mmap", "openat", "read"}
	obs := []string{
		writeObs(t, "mcp-filesystem", scmp.X86_64, append(node, "write", "fsync", "flock", "ptrace")...),
		writeObs(t, "mcp-filesystem", scmp.AArch64, append(node, "write", "fsync")...),
	}
	args := append([]string{"report", "pr-body", "--baselines", dir, "--arch", "x86_64,aarch64"}, obs...)
	code, stdout, stderr := run(t, args...)
	if code != ExitOK || !strings.Contains(stdout, "`ptrace` **(process-access)**") {
		t.Fatalf("dry run: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(agentFile); string(after) != string(before) {
		t.Fatal("a dry run rewrote the baseline")
	}
	code, _, stderr = run(t, append([]string{"report", "pr-body", "--write", "--baselines", dir, "--arch", "x86_64,aarch64"}, obs...)...)
	if code != ExitOK {
		t.Fatalf("--write: code %d stderr %s", code, stderr)
	}
	p, err := baseline.Load(agentFile)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Allows(scmp.X86_64, "ptrace") {
		t.Error("--write did not add ptrace to the agent's baseline")
	}
}

func TestReportPRBodyReportsUnexpectedArch(t *testing.T) {
	dir := reportBaselines(t)
	obs := writeObs(t, "mcp-filesystem", scmp.X86_64, "read", "write")
	code, _, stderr := run(t, "report", "pr-body", "--write", "--baselines", dir, "--arch", "aarch64", obs)
	if code != ExitUsage || !strings.Contains(stderr, "observed on x86_64") || !strings.Contains(stderr, "no shard observed it on aarch64") {
		t.Fatalf("code %d stderr %s", code, stderr)
	}
}

func TestReportWithoutInputIsUsageError(t *testing.T) {
	code, _, stderr := run(t, "report", "summary")
	if code != ExitUsage || !strings.Contains(stderr, "no input") {
		t.Fatalf("code %d stderr %s", code, stderr)
	}
}

// ginkgoReport writes a Ginkgo JSON report with one spec that attached
// res, as harness.Run does under Ginkgo.
func ginkgoReport(t *testing.T, res *verdict.Result) string {
	t.Helper()
	spec := types.SpecReport{LeafNodeText: "agent reads a file", LeafNodeType: types.NodeTypeIt, State: types.SpecStateFailed,
		ReportEntries: types.ReportEntries{{Name: verdict.ReportEntryName, Value: types.WrapEntryValue(res)}}}
	data, err := json.Marshal([]types.Report{{SuitePath: t.TempDir(), SpecReports: types.SpecReports{spec}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReportSummaryAndAnnotationsFromGinkgo(t *testing.T) {
	res := &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64,
		Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "bpf", Count: 2, Risk: risk.KernelObserve,
			PID: 9, Exe: "/usr/bin/python3", Comm: "python3", File: "/repo/b/py.yaml", Line: 4}}}
	report := ginkgoReport(t, res)

	code, stdout, stderr := run(t, "report", "summary", "--root", "/repo", "--ginkgo-json", report)
	if code != ExitOK || !strings.Contains(stdout, "| py | x86_64 | ❌ violation |") || !strings.Contains(stdout, "`b/py.yaml:4`") {
		t.Fatalf("summary: code %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, _ := run(t, "report", "summary", "--exit-code", "--ginkgo-json", report); code != ExitViolation {
		t.Errorf("--exit-code on a violation: %d, want %d", code, ExitViolation)
	}
	code, stdout, _ = run(t, "report", "annotations", "--root", "/repo", report)
	if code != ExitOK || !strings.HasPrefix(stdout, "::error file=b/py.yaml,line=4,title=sysgate%3A risky syscall bpf (x86_64) by py::") {
		t.Fatalf("annotations: code %d\n%s", code, stdout)
	}
}

func TestReportObservationsWritesPerAgentFiles(t *testing.T) {
	o := baseline.NewObservation("py")
	o.Runs = 1
	o.Add(scmp.X86_64, "bpf", 2)
	res := &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Observed: o}
	dir := filepath.Join(t.TempDir(), "obs")
	code, _, stderr := run(t, "report", "observations", "--check-runs", "-o", dir, "--ginkgo-json", ginkgoReport(t, res))
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	got, err := baseline.ReadObservation(filepath.Join(dir, "py.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Count(scmp.X86_64, "bpf") != 2 || got.Runs != 1 {
		t.Errorf("py.json: %+v", got)
	}
}

// TestReportObservationsOfACheckRun: a check run's result holds no
// observation to write; report observations says what to give instead
// and fails, so the step that needs the files does not fail later.
func TestReportObservationsOfACheckRun(t *testing.T) {
	o := baseline.NewObservation("py")
	o.Runs = 1
	res := &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean, Arch: scmp.X86_64, Observed: o}
	dir := filepath.Join(t.TempDir(), "obs")
	code, _, stderr := run(t, "report", "observations", "-o", dir, "--ginkgo-json", ginkgoReport(t, res))
	if code != ExitUsage || !strings.Contains(stderr, "1 check or enforce run and no record run") ||
		!strings.Contains(stderr, "sysgate record --result") || !strings.Contains(stderr, "--check-runs") {
		t.Errorf("code %d, want %d with what to give instead:\n%s", code, ExitUsage, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %d files for a check run", len(entries))
	}

	res.Mode, res.Inconclusive = baseline.ModeRecord, "events lost"
	code, _, stderr = run(t, "report", "observations", "-o", dir, "--ginkgo-json", ginkgoReport(t, res))
	if code != ExitInconclusive || !strings.Contains(stderr, "no conclusive run") {
		t.Errorf("an inconclusive record run: code %d, want %d:\n%s", code, ExitInconclusive, stderr)
	}
}
