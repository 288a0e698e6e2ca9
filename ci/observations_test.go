package ci

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

func TestReportObservationsLeaveOutBitesAndInconclusiveRuns(t *testing.T) {
	obs := func(agent string, names ...string) *baseline.Observation {
		o := baseline.NewObservation(agent)
		o.Runs = 1
		for _, n := range names {
			o.Add(scmp.X86_64, n, 1)
		}
		return o
	}
	r, err := Load(LoadOptions{}, writeGinkgoReport(t, fixtureSuite,
		spec{text: "a", failed: "violation", result: &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation,
			Arch: scmp.X86_64, Observed: obs("py", "statx")}},
		spec{text: "b", result: &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.X86_64, Observed: obs("py")}},
		spec{text: "bite", result: &verdict.Result{Agent: "py-bite", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation,
			Arch: scmp.X86_64, Observed: obs("py-bite", "unshare")}},
		spec{text: "lossy", failed: "lost", result: &verdict.Result{Agent: "py", Mode: baseline.ModeCheck, Verdict: verdict.VerdictInconclusive,
			Arch: scmp.X86_64, Observed: obs("py", "ptrace")}},
	))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := r.Observations(false); err != nil || len(m) != 0 {
		t.Errorf("check runs taken without checkRuns: %v %v", m, err)
	}
	m, err := r.Observations(true)
	if err != nil {
		t.Fatal(err)
	}
	// A check run logs only what its baselines lack: an update from it
	// must keep what it did not see, as one from an incremental record.
	if len(m) != 1 || m["py"] == nil || m["py"].Runs != 2 || m["py"].Count(scmp.X86_64, "statx") != 1 || m["py"].Count(scmp.X86_64, "ptrace") != 0 ||
		!m["py"].Incremental {
		data, _ := json.Marshal(m)
		t.Errorf("observations: %s", data)
	}
}

// TestReportObservationsRefuseAnExecMismatch: a run whose exec ran
// another program than it named stops the update; a bite that asserted
// one is left out as every bite is.
func TestReportObservationsRefuseAnExecMismatch(t *testing.T) {
	mismatch := []verdict.ProgramViolation{{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/curl", Requested: "/bin/true"},
		Mismatch: "the exec named /bin/true; the kernel ran /usr/bin/curl"}}
	obs := baseline.NewObservation("py")
	obs.Runs = 1
	obs.Add(scmp.X86_64, "read", 1)
	res := &verdict.Result{Agent: "py", Mode: baseline.ModeRecord, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Observed: obs,
		ProgramViolations: mismatch}
	bite, err := Load(LoadOptions{}, writeGinkgoReport(t, fixtureSuite, spec{text: "swaps a path", result: res}))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := bite.Observations(false); err != nil || len(m) != 0 {
		t.Errorf("a bite: %v %v", m, err)
	}
	r, err := Load(LoadOptions{}, writeGinkgoReport(t, fixtureSuite, spec{text: "records", failed: "violation", result: res}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Observations(false); !errors.Is(err, ErrExecMismatch) || !strings.Contains(err.Error(), "/usr/bin/curl") {
		t.Errorf("err = %v, want ErrExecMismatch naming the program", err)
	}
}
