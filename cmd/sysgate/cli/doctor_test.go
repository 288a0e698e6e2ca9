package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/auditlog/preflight"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/golden"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
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
	fakeDoctor(t, &preflight.Report{Checks: []preflight.Check{
		{Name: "seccomp", OK: true, Detail: "SECCOMP_RET_LOG available"},
		{Name: "actions_logged", Detail: fake.Problem, Fix: fix, Err: fake},
	}}, "", "")
	var out bytes.Buffer
	code := (&Command{Stdout: &out}).Main([]string{"sysgate", "doctor"})
	if code != ExitInconclusive {
		t.Errorf("exit %d, want %d", code, ExitInconclusive)
	}
	want := "FAIL  actions_logged     actions_logged lacks log\n                         fix: " + fix + "\nok    names (network)"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output:\n%s\nwant it to contain:\n%s", out.String(), want)
	}
}

// fakeDoctor makes doctor see report and the harness's reasons auditWhy
// and notifyWhy, for this test.
func fakeDoctor(t *testing.T, report *preflight.Report, auditWhy, notifyWhy string) {
	t.Helper()
	oldRun, oldAudit, oldNotify, oldNames := runPreflight, auditUnavailable, notifyUnavailable, namesUnavailable
	t.Cleanup(func() {
		runPreflight, auditUnavailable, notifyUnavailable, namesUnavailable = oldRun, oldAudit, oldNotify, oldNames
	})
	namesUnavailable = func() string { return "" }
	runPreflight = func() (*preflight.Report, error) {
		var errs []error
		for _, c := range report.Failed() {
			errs = append(errs, c.Err)
		}
		return report, errors.Join(errs...)
	}
	auditUnavailable = func() string { return auditWhy }
	notifyUnavailable = func() string { return notifyWhy }
}

func TestDoctorJSON(t *testing.T) {
	fakeDoctor(t, &preflight.Report{Checks: []preflight.Check{{Name: "seccomp", OK: true, Detail: "SECCOMP_RET_LOG available"}},
		Status: &auditctl.Status{BacklogLimit: 64, BacklogWaitTime: 15000}}, "", "")
	var out bytes.Buffer
	if code := (&Command{Stdout: &out}).Main([]string{"sysgate", "doctor", "--format", "json"}); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var got preflight.Report
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%s: %v", out.String(), err)
	}
	if len(got.Checks) != 2 || !got.Checks[0].OK || got.Checks[1].Name != "names (network)" || got.Status == nil || got.Status.BacklogWaitTime != 15000 {
		t.Errorf("round trip: %+v", got)
	}
}

// TestDoctorBackends pins what doctor says about the backends, and its
// exit code, on the machines it meets: root with audit, a user without
// root, root with audit broken, a kernel without the listener.
func TestDoctorBackends(t *testing.T) {
	ok := func(name, detail string) preflight.Check {
		return preflight.Check{Name: name, OK: true, Detail: detail}
	}
	failed := func(name, detail, fix string) preflight.Check {
		return preflight.Check{Name: name, Detail: detail, Fix: fix, Err: &auditctl.Error{Kind: auditctl.ErrPermission, Problem: detail, Fix: fix}}
	}
	listener := ok("seccomp listener", "hangs up when a run's last process exits")
	notRoot := "no CAP_AUDIT_CONTROL (not root)"
	noHangUp := "seccomp listener hang-up not supported by this kernel: the listener did not hang up after its only thread exited: timeout (needs Linux 5.8+)"
	for _, tc := range []struct {
		golden              string
		args                []string
		checks              []preflight.Check
		auditWhy, notifyWhy string
		code                int
	}{
		{"root.out", nil, []preflight.Check{listener, ok("CAP_AUDIT_READ", "present"), ok("end to end", "a logged syscall's record arrived in 300µs")}, "", "", ExitOK},
		{"unprivileged.out", nil, []preflight.Check{listener, failed("CAP_AUDIT_READ", "process lacks CAP_AUDIT_READ", "run as root"),
			failed("audit status", "cannot query audit status", "run as root")}, notRoot, "", ExitOK},
		{"unprivileged-audit.out", []string{"--backend", "audit"}, []preflight.Check{listener, failed("CAP_AUDIT_READ", "process lacks CAP_AUDIT_READ", "run as root")},
			notRoot, "", ExitInconclusive},
		{"audit-broken.out", nil, []preflight.Check{listener, failed("actions_logged", "actions_logged lacks log", "sudo sysctl -w ...")}, "", "", ExitInconclusive},
		{"audit-broken-notify.out", []string{"--backend", "notify"}, []preflight.Check{listener, failed("actions_logged", "actions_logged lacks log", "sudo sysctl -w ...")},
			"", "", ExitOK},
		{"old-kernel.out", nil, []preflight.Check{failed("seccomp listener", noHangUp, "use Linux 5.8+")}, "", noHangUp, ExitInconclusive},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			fakeDoctor(t, &preflight.Report{Checks: tc.checks}, tc.auditWhy, tc.notifyWhy)
			code, stdout, stderr := run(t, append([]string{"doctor"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			golden.Check(t, filepath.Join("testdata", "doctor", tc.golden), []byte(stdout+stderr))
		})
	}
}

// Doctor as a user without root, for real: a copy of the binary every
// user can run, started through setpriv as nobody (uid 65534) with no
// groups and no capabilities. Audit is not usable, notify is (where the kernel has it),
// auto runs notify, and the exit code says the machine can run the gate.
func TestDoctorUnprivileged(t *testing.T) {
	u := newUnprivileged(t)
	notifyWorks := harness.NotifyUnavailable() == ""
	doctor := func(args ...string) (int, string) {
		t.Helper()
		code, _, out := u.run(t, asNobody, append([]string{"doctor"}, args...)...)
		return code, out
	}

	code, out := doctor()
	want := map[bool]int{true: ExitOK, false: ExitInconclusive}[notifyWorks]
	if code != want {
		t.Errorf("doctor as uid 65534: exit %d, want %d (notify usable: %v)\n%s", code, want, notifyWorks, out)
	}
	// Audit's checks fail for nobody, and read as skipped: the runs here
	// use notify, which needs none of them.
	for _, line := range []string{"skip  CAP_AUDIT_READ     audit only: ", "  audit   not usable: no CAP_AUDIT_", "  auto    runs notify (audit unavailable: "} {
		if !strings.Contains(out, line) {
			t.Errorf("doctor as uid 65534 lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "FAIL  CAP_") || strings.Contains(out, "FAIL  audit") {
		t.Errorf("doctor as uid 65534 prints audit's checks as failures of runs that use notify:\n%s", out)
	}
	if strings.Contains(out, "through a user namespace") && !strings.Contains(out, "as unshare -Ur gives one") {
		t.Errorf("doctor as uid 65534 does not say a user namespace gives the run its PID namespace:\n%s", out)
	}
	if !strings.Contains(out, "warn  names (network)    runs here record no names") {
		t.Errorf("doctor as uid 65534 does not warn that runs record no names:\n%s", out)
	}
	if notifyWorks && !strings.Contains(out, "  notify  usable: ") {
		t.Errorf("doctor as uid 65534 does not find notify usable:\n%s", out)
	}

	code, out = doctor("--format", "json")
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--format json: exit %d, %v\n%s", code, err, out)
	}
	if r.Auto != verdict.BackendNotify || r.Backend != verdict.BackendNotify || r.Ready != notifyWorks || code != want ||
		len(r.Backends) != 2 || r.Backends[0].Usable || r.Backends[1].Usable != notifyWorks {
		t.Errorf("--format json: exit %d, auto %s, backend %s, ready %v, backends %+v", code, r.Auto, r.Backend, r.Ready, r.Backends)
	}

	if code, out = doctor("--backend", "audit"); code != ExitInconclusive || !strings.Contains(out, "not ready: runs with --backend audit") {
		t.Errorf("--backend audit as uid 65534: exit %d, want %d\n%s", code, ExitInconclusive, out)
	}
}

// $SYSGATE_BACKEND names the backend doctor's exit code is about, as it
// names the runs' backend; --backend wins over it.
func TestDoctorFollowsSysgateBackend(t *testing.T) {
	broken := preflight.Check{Name: "actions_logged", Detail: "actions_logged lacks log",
		Err: &auditctl.Error{Kind: auditctl.ErrActionNotLogged, Problem: "actions_logged lacks log"}}
	fakeDoctor(t, &preflight.Report{Checks: []preflight.Check{broken}}, "", "")
	for _, tc := range []struct {
		env, flag string
		code      int
	}{
		{"", "", ExitInconclusive}, // auto runs audit, which cannot
		{"notify", "", ExitOK},
		{"notify", "audit", ExitInconclusive},
		{"bogus", "", ExitUsage},
	} {
		args := []string{"sysgate", "doctor"}
		if tc.flag != "" {
			args = append(args, "--backend", tc.flag)
		}
		var out, errb bytes.Buffer
		c := &Command{Stdout: &out, Stderr: &errb, Env: []string{"SYSGATE_BACKEND=" + tc.env}}
		if code := c.Main(args); code != tc.code {
			t.Errorf("SYSGATE_BACKEND=%q --backend %q: exit %d, want %d\n%s%s", tc.env, tc.flag, code, tc.code, out.String(), errb.String())
		}
	}
}
