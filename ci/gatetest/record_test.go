package gatetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
)

func TestRecordPolicy(t *testing.T) {
	for _, c := range []struct {
		runs, max string
		want      baseline.RecordRuns
		bad       bool
	}{
		{"", "", baseline.DefaultRecordRuns, false},
		{"1", "", baseline.ExactRuns(1), false},
		{"", "2", baseline.RecordRuns{Min: 2, Quiet: 2, Max: 2}, false},
		{"0", "", baseline.RecordRuns{}, true},
		{"x", "", baseline.RecordRuns{}, true},
		{"", "-3", baseline.RecordRuns{}, true},
	} {
		env := map[string]string{EnvRecordRuns: c.runs, EnvRecordMaxRuns: c.max}
		got, err := RecordPolicy(func(k string) string { return env[k] })
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("runs %q max %q: %+v, %v", c.runs, c.max, got, err)
		}
	}
}

// Record runs the agent until two runs in a row add nothing and merges
// the runs into the observation file once: the second run's rare call is
// in it, seen in one of four runs.
func TestRecordUntilStable(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	dir := t.TempDir()
	counter, obs := filepath.Join(dir, "counter"), filepath.Join(dir, "obs", "agent.json")
	if err := os.WriteFile(counter, []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "import os, sys\np = sys.argv[1]\nn = int(open(p).read())\nopen(p, 'w').write(str(n + 1))\nif n == 1:\n    os.getpgid(0)\n"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A baseline that allows little: what the runs do beyond it is what
	// they learn, not a reason to stop.
	base := filepath.Join(dir, "base.yaml")
	if err := os.WriteFile(base, []byte("version: 1\nagent: agent\nsyscalls:\n  x86_64: [read]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Record(ctx, harness.Agent{Name: "agent", Command: []string{py, "-I", "-S", "-c", script, counter}}, baseline.DefaultRecordRuns, obs,
		harness.WithBaselines(base))
	if err != nil {
		t.Fatal(err)
	}
	if r.Recording == nil || r.Recording.Runs != 4 || r.Recording.LastChange != 2 || !r.Recording.Stable || r.ObservationFile != obs {
		t.Fatalf("recording %+v, observation file %q", r.Recording, r.ObservationFile)
	}
	o, err := baseline.ReadObservation(obs)
	if err != nil {
		t.Fatal(err)
	}
	if runs := o.RunsOf(baseline.ObservedKey{Kind: baseline.KeySyscall, Arch: scmp.Native(), Name: "getpgid"}); o.Runs != 4 || len(runs) != 1 {
		t.Errorf("observation of %d runs, getpgid in runs %v; want 4 runs, one of them", o.Runs, runs)
	}
}
