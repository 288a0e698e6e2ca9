package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// An agent whose only change is a sleep and a yield (calls that appear
// in a real agent's run or not by scheduling alone) checks clean against
// a recording that made neither, on both backends; a baseline that asks
// for them exactly, or --scheduling exact, fails it, naming them
// scheduling-dependent and never a behaviour change (issue 42, item 1).
// The same holds for Go's preemption signal (getpid, then tgkill of its
// own thread with SIGURG: pthread_kill makes exactly those calls), while
// tgkill with any other signal still fails the grouped check.
func TestSchedulingCallsNeverFailAnUnchangedAgent(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	quiet := "import os, time"
	sleeps := "import os, time, signal, threading; os.sched_yield(); time.sleep(0.001); signal.pthread_kill(threading.get_ident(), signal.SIGURG)"
	signals := "import signal, threading; signal.signal(signal.SIGUSR1, signal.SIG_IGN); signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)"
	for _, backend := range []string{"audit", "notify"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			grouped, exact := filepath.Join(dir, "grouped.yaml"), filepath.Join(dir, "exact.yaml")
			for _, rec := range [][]string{
				{"record", "--backend", backend, "-o", grouped, "--", py, "-I", "-S", "-c", quiet},
				{"record", "--backend", backend, "--scheduling", "exact", "-o", exact, "--", py, "-I", "-S", "-c", quiet},
			} {
				if code, _, stderr := runAgentVerb(t, rec...); code != ExitOK {
					t.Fatalf("%v: %d\n%s", rec, code, stderr)
				}
			}
			for _, path := range []string{grouped, exact} {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, call := range []string{"sched_yield", "clock_nanosleep", "getpid", "tgkill"} {
					if strings.Contains(string(data), "- "+call) {
						t.Fatalf("[setup]: the recording of %q made %s, so it cannot show a check of a run that makes it:\n%s", quiet, call, data)
					}
				}
			}
			if data, _ := os.ReadFile(exact); !strings.Contains(string(data), "\nscheduling: exact\n") {
				t.Errorf("record --scheduling exact writes the key:\n%s", data)
			}

			code, stdout, stderr := runAgentVerb(t, "check", "--backend", backend, "-b", grouped, "--", py, "-I", "-S", "-c", sleeps)
			if code != ExitOK || !strings.Contains(stdout, "CLEAN") {
				t.Errorf("check of the sleeping agent against the grouped recording: code %d, want 0\n%s%s", code, stdout, stderr)
			}
			code, stdout, stderr = runAgentVerb(t, "check", "--backend", backend, "-b", grouped, "--", py, "-I", "-S", "-c", signals)
			if code != ExitViolation || !strings.Contains(stdout, "tgkill(SIGUSR1)") || strings.Contains(stdout, "scheduling-dependent") {
				t.Errorf("check of an agent that signals SIGUSR1 against the grouped recording: code %d, want 1 naming tgkill(SIGUSR1) as a behaviour change\n%s%s", code, stdout, stderr)
			}
			for _, check := range [][]string{
				{"check", "--backend", backend, "-b", exact, "--", py, "-I", "-S", "-c", sleeps},
				{"check", "--backend", backend, "--scheduling", "exact", "-b", grouped, "--", py, "-I", "-S", "-c", sleeps},
			} {
				code, stdout, stderr := runAgentVerb(t, check...)
				if code != ExitViolation {
					t.Errorf("%v: code %d, want 1\n%s%s", check, code, stdout, stderr)
					continue
				}
				for _, want := range []string{"sched_yield", "clock_nanosleep", "getpid", "tgkill(SIGURG)", "are scheduling-dependent calls", "scheduling: exact"} {
					if !strings.Contains(stdout, want) {
						t.Errorf("%v: the report lacks %q\n%s", check, want, stdout)
					}
				}
				if strings.Contains(stdout, "behaviour change") {
					t.Errorf("%v: the report calls a scheduling difference a behaviour change\n%s", check, stdout)
				}
			}
		})
	}
}
