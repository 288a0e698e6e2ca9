package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/auditlog/preflight"
	"github.com/sysgate/sysgate/internal/testutil"
)

func TestDoctorPassesHere(t *testing.T) {
	testutil.RequireAudit(t)
	auditctltest.HoldTuning(t)
	var out, errOut bytes.Buffer
	code := (&Command{Stdout: &out, Stderr: &errOut}).Main([]string{"sysgate", "doctor"})
	if code != ExitOK {
		t.Fatalf("doctor exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"ok    actions_logged", "ok    CAP_AUDIT_READ", "ok    end to end", "ready:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestDoctorPrintsTheFix(t *testing.T) {
	fix := `sudo sysctl -w kernel.seccomp.actions_logged="kill_process log"`
	fake := &auditctl.Error{Kind: auditctl.ErrActionNotLogged, Problem: "actions_logged lacks log", Fix: fix}
	old := runPreflight
	runPreflight = func() (*preflight.Report, error) {
		return &preflight.Report{Checks: []preflight.Check{
			{Name: "seccomp", OK: true, Detail: "SECCOMP_RET_LOG available"},
			{Name: "actions_logged", Detail: fake.Problem, Fix: fix, Err: fake},
		}}, errors.Join(fake)
	}
	t.Cleanup(func() { runPreflight = old })
	var out bytes.Buffer
	code := (&Command{Stdout: &out}).Main([]string{"sysgate", "doctor"})
	if code != ExitInconclusive {
		t.Errorf("exit %d, want %d", code, ExitInconclusive)
	}
	want := "FAIL  actions_logged     actions_logged lacks log\n                         fix: " + fix + "\nnot ready: 1 check failed"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output:\n%s\nwant it to contain:\n%s", out.String(), want)
	}
}

func TestDoctorJSON(t *testing.T) {
	old := runPreflight
	runPreflight = func() (*preflight.Report, error) {
		return &preflight.Report{Checks: []preflight.Check{{Name: "seccomp", OK: true, Detail: "SECCOMP_RET_LOG available"}},
			Status: &auditctl.Status{BacklogLimit: 64, BacklogWaitTime: 15000}}, nil
	}
	t.Cleanup(func() { runPreflight = old })
	var out bytes.Buffer
	if code := (&Command{Stdout: &out}).Main([]string{"sysgate", "doctor", "--format", "json"}); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var got preflight.Report
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%s: %v", out.String(), err)
	}
	if len(got.Checks) != 1 || !got.Checks[0].OK || got.Status == nil || got.Status.BacklogWaitTime != 15000 {
		t.Errorf("round trip: %+v", got)
	}
}
