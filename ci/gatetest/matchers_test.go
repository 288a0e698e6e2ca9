package gatetest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/format"
	"github.com/onsi/gomega/types"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

func fakeResult(v verdict.Verdict, vs ...verdict.Violation) *verdict.Result {
	obs := baseline.NewObservation("fake")
	obs.Add(scmp.X86_64, "read", 3)
	for _, v := range vs {
		obs.Add(v.Arch, v.Syscall, v.Count)
	}
	return &verdict.Result{Agent: "fake", Mode: baseline.ModeCheck, Baselines: []string{"agents/fake.yaml"},
		Verdict: v, Observed: obs, Violations: vs}
}

var socketViolation = verdict.Violation{Arch: scmp.X86_64, Syscall: "socket", Number: 41, Count: 2,
	PID: 42, Exe: "/usr/bin/python3", Comm: "python3", File: "agents/fake.yaml", Line: 17}
var ptraceViolation = verdict.Violation{Arch: scmp.X86_64, Syscall: "ptrace", Number: 101, Count: 1, Risk: risk.ProcessAccess,
	PID: 43, Exe: "/usr/bin/gdb", Comm: "gdb", File: "agents/fake.yaml", Line: 12}

func TestStayWithinBaselineMessages(t *testing.T) {
	g := NewWithT(t)
	clean := fakeResult(verdict.VerdictClean)
	g.Expect(clean).To(StayWithinBaseline())
	g.Expect(Err(clean)).To(Succeed())

	bad := fakeResult(verdict.VerdictViolation, socketViolation, ptraceViolation)
	m := StayWithinBaseline()
	ok, err := m.Match(bad)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeFalse())
	msg := m.FailureMessage(bad)
	for _, want := range []string{"x86_64 socket (41) x2 by /usr/bin/python3 (python3, pid 42) -> agents/fake.yaml:17",
		"ptrace (101) [risky: process-access]", "add them to the baseline with a reason and review", "1 of them are risky"} {
		g.Expect(msg).To(ContainSubstring(want))
	}
	// A library names no build's command; the caller's is shown.
	g.Expect(msg).NotTo(ContainSubstring("make "))
	bad.AcceptCommand = "make security-baselines"
	g.Expect(m.FailureMessage(bad)).To(ContainSubstring("or run `make security-baselines` and review"))
	g.Expect(m.NegatedFailureMessage(bad)).To(ContainSubstring("fake"))

	var fe interface{ FormattedGomegaError() string }
	g.Expect(errors.As(Err(bad), &fe)).To(BeTrue())
	g.Expect(fe.FormattedGomegaError()).To(ContainSubstring("agents/fake.yaml:17"))
	g.Expect(format.Object(bad.Violations, 0)).To(ContainSubstring("socket (41)"))
	// A Result in any Gomega failure reads as sysgate check's summary
	// (the formatter gatetest registers), not as harness's data line.
	g.Expect(format.Object(bad, 0)).To(And(ContainSubstring(strings.SplitN(ci.Summary(bad), "\n", 2)[0]),
		ContainSubstring("x86_64 socket (41) x2 by"), Not(ContainSubstring("*verdict.Result{"))))
}

// A program outside the baseline fails the gate on its own, with the
// syscalls clean: the message names the program, what ran it and where
// its line goes.
func TestStayWithinBaselineFailsOnAProgram(t *testing.T) {
	g := NewWithT(t)
	bad := fakeResult(verdict.VerdictViolation)
	bad.ProgramViolations = []verdict.ProgramViolation{{ProgramRun: verdict.ProgramRun{Path: "/usr/bin/curl", Role: verdict.RoleProgram,
		Argv: []string{"curl", "-s", "http://127.0.0.1:8080/"}, Parent: "/usr/bin/python3.11", PID: 42, Count: 1,
		Risk: risk.Downloader, Level: risk.High}, File: "agents/fake.yaml", Line: 5}}
	m := StayWithinBaseline()
	ok, err := m.Match(bad)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeFalse())
	msg := m.FailureMessage(bad)
	for _, want := range []string{"ran 1 program outside it", "/usr/bin/curl [risky: downloader, high]", "run by /usr/bin/python3.11 (pid 42)", "agents/fake.yaml:5"} {
		g.Expect(msg).To(ContainSubstring(want))
	}
	g.Expect(msg).NotTo(ContainSubstring("syscalls outside"))
	g.Expect(bad).NotTo(StayWithinBaseline())
}

// An inconclusive run proves nothing either way: every matcher errors for
// To and NotTo alike, so a bite spec (NotTo) cannot pass on a run that saw
// nothing.
func TestInconclusiveFailsBothPolarities(t *testing.T) {
	r := fakeResult(verdict.VerdictInconclusive)
	r.Inconclusive = "audit records lost: 3 audit records never delivered"
	for name, m := range map[string]types.GomegaMatcher{
		"StayWithinBaseline":        StayWithinBaseline(),
		"StayWithinBaseline(files)": StayWithinBaseline("agents/fake.yaml"),
		"HaveObserved(absent)":      HaveObserved("connect"),
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := m.Match(r)
			g.Expect(err).To(MatchError(And(ContainSubstring("inconclusive"), ContainSubstring("audit records lost"),
				ContainSubstring("sysgate doctor"))))
			for _, negate := range []bool{false, true} {
				var failures []string
				spec := NewGomega(func(msg string, _ ...int) { failures = append(failures, msg) })
				if negate {
					spec.Expect(r).NotTo(m)
				} else {
					spec.Expect(r).To(m)
				}
				g.Expect(failures).To(ConsistOf(ContainSubstring("inconclusive")), "negated %v", negate)
			}
			g.Expect(func() { m.FailureMessage(r); m.NegatedFailureMessage(r) }).NotTo(Panic())
		})
	}
	NewWithT(t).Expect(Err(r)).To(HaveOccurred())
}

// The matchers rank like the verdict: violation > inconclusive > agent
// failed > clean.
func TestMatchersFollowTheVerdictOrder(t *testing.T) {
	g := NewWithT(t)
	// A violation, then a flood: still a violation, the loss beside it.
	flooded := fakeResult(verdict.VerdictViolation, socketViolation)
	flooded.Inconclusive = "audit records lost: 90000 audit records never delivered"
	g.Expect(flooded).NotTo(StayWithinBaseline())
	m := StayWithinBaseline()
	ok, err := m.Match(flooded)
	g.Expect(ok, err).To(BeFalse())
	g.Expect(m.FailureMessage(flooded)).To(And(ContainSubstring("socket (41)"), ContainSubstring("also inconclusive"), ContainSubstring("90000")))
	// What the run saw, it saw, whatever else it missed.
	g.Expect(flooded).To(HaveObserved("socket"))

	// Clean syscalls, failed agent: To fails, naming how it ended.
	failed := fakeResult(verdict.VerdictAgentFailed)
	failed.Signal = "segmentation fault"
	m = StayWithinBaseline()
	ok, err = m.Match(failed)
	g.Expect(ok, err).To(BeFalse())
	g.Expect(m.FailureMessage(failed)).To(And(ContainSubstring("killed by segmentation fault"), ContainSubstring("WithAllowAgentFailure")))
	g.Expect(Err(failed)).To(MatchError(ContainSubstring("segmentation fault")))
}

func TestMatchersRejectWrongActualAndNeverPanic(t *testing.T) {
	g := NewWithT(t)
	for _, m := range []interface {
		Match(any) (bool, error)
		FailureMessage(any) string
		NegatedFailureMessage(any) string
	}{
		StayWithinBaseline().(*withinBaselineMatcher), HaveObserved("connect").(*observedMatcher),
	} {
		_, err := m.Match("not a result")
		g.Expect(err).To(MatchError(ContainSubstring("*verdict.Result")))
		_, err = m.Match((*verdict.Result)(nil))
		g.Expect(err).To(HaveOccurred())
		g.Expect(func() { m.FailureMessage(nil); m.NegatedFailureMessage(nil) }).NotTo(Panic())
	}
}

func TestHaveObserved(t *testing.T) {
	g := NewWithT(t)
	r := fakeResult(verdict.VerdictViolation, socketViolation)
	g.Expect(r).To(HaveObserved("socket"))
	g.Expect(r).NotTo(HaveObserved("connect"))
	m := HaveObserved("connect")
	_, _ = m.Match(r)
	g.Expect(m.FailureMessage(r)).To(And(ContainSubstring("x86_64: read socket"), ContainSubstring("record mode sees all")))
}

// Against explicit files the matcher diffs the observation itself and
// points at the insertion line in the agent's file.
func TestStayWithinBaselineFiles(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "fake.yaml")
	obs := baseline.NewObservation("fake")
	obs.Add(scmp.X86_64, "read", 1)
	_, err := baseline.WriteRecorded(path, obs, baseline.RecordOptions{Agent: "fake"})
	g.Expect(err).NotTo(HaveOccurred())

	r := fakeResult(verdict.VerdictClean)
	r.Mode = baseline.ModeRecord
	g.Expect(r).To(StayWithinBaseline(path))
	r.Observed.Add(scmp.X86_64, "socket", 1)
	m := StayWithinBaseline(path)
	ok, err := m.Match(r)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeFalse())
	g.Expect(m.FailureMessage(r)).To(ContainSubstring(path + ":"))

	r.ObservationFile = filepath.Join(dir, "fake.json")
	g.Expect(r).To(StayWithinBaseline(path), "a run that learned (WithObservationFile) passes")
	g.Expect(r).To(StayWithinBaseline(), "a run that learned (WithObservationFile) passes")
}
