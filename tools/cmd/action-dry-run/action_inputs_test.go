package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/tools/internal/actionrun"
)

// Issue 33, item 5: the action's inputs are validated, user-named paths
// are never removed, temporaries stay under RUNNER_TEMP, a non-Linux
// runner is told so first, a doctor failure is an inconclusive verdict,
// and each matrix leg's artifact has a name of its own.

// exitingAgent exits with its first argument: a failing agent whose
// syscalls are the same as a passing one's.
const exitingAgent = `import sys
print("hello from the agent")
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
`

func TestActionInputs(t *testing.T) {
	e := newDryRunEnv(t)
	auditctltest.HoldTuning(t)
	ws := filepath.Join(e.base, "agent")
	writeFiles(t, ws, map[string]string{"agent.py": exitingAgent})
	gitRepo(t, ws)
	rec := e.run(t, runOpts{dir: ws, inputs: []string{"command=" + python + " agent.py 0", "baselines=agent.yaml", "agent=sample", "mode=record"}})
	if rec.code != 0 {
		t.Fatalf("record: exit %d", rec.code)
	}
	base, err := os.ReadFile(filepath.Join(ws, "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{"agent.yaml": strings.ReplaceAll(string(base), "unreviewed: seen in record mode", "the agent's interpreter")})
	sysgate := filepath.Join(rec.step(t, "plan").Outputs["bin-dir"], "sysgate")
	if out, err := exec.Command(sysgate, "baseline", "fmt", "-w", filepath.Join(ws, "agent.yaml")).CombinedOutput(); err != nil {
		t.Fatalf("baseline fmt -w: %v\n%s", err, out)
	}
	check := func(argv string, more ...string) []string {
		return append([]string{"command=" + python + " agent.py " + argv, "baselines=agent.yaml", "agent=sample"}, more...)
	}
	// badInput: the job fails in the gate step (the doctor for backend)
	// with exit 2 and an error annotation naming the input.
	badInput := func(t *testing.T, j job, msg string) {
		t.Helper()
		step := "gate"
		if strings.HasPrefix(msg, "backend:") {
			step = "doctor"
		}
		if g := j.step(t, step); g.Outcome != actionrun.Failure || g.ExitCode != 2 || j.code != 2 {
			t.Errorf("%s step %s exit %d, job exit %d: want a failure with exit 2", step, g.Outcome, g.ExitCode, j.code)
		}
		found := false
		for _, a := range j.res.Annotations {
			found = found || a.Level == "error" && strings.Contains(a.Message, msg)
		}
		if !found {
			t.Errorf("no error annotation says %q: %+v", msg, j.res.Annotations)
		}
	}

	for _, c := range []struct{ name, input, msg string }{
		{"strict", "strict=yes", "strict: 'yes' is not true or false"},
		{"upload", "upload=1", "upload: '1' is not true or false"},
		{"incremental", "incremental=True", "incremental: 'True' is not true or false"},
		{"record-runs", "record-runs=0", "record-runs: '0' is not a number of runs"},
		{"allow-agent-failure", "allow-agent-failure=on", "allow-agent-failure: 'on' is not true or false"},
		{"mode", "mode=learn", "mode: 'learn' is not check, record or enforce"},
		{"backend", "backend=ebpf", "backend: 'ebpf' is not auto, audit or notify"},
		{"args", "args=--result=/tmp/forged.json", "args: --result is not one the action passes on"},
		{"pass-env", "pass-env=A;B", "pass-env: 'A;B' is not a variable name or glob"},
		{"env-file", "env-file=missing.env", "env-file: missing.env is not a file"},
	} {
		t.Run("bad/"+c.name, func(t *testing.T) {
			badInput(t, e.run(t, runOpts{dir: ws, inputs: check("0", c.input)}), c.msg)
		})
	}

	t.Run("reports", func(t *testing.T) {
		// A directory of the user's is refused, and kept as it was.
		writeFiles(t, ws, map[string]string{"mine/keep.txt": "the user's\n"})
		badInput(t, e.run(t, runOpts{dir: ws, inputs: check("0", "reports=mine")}), "reports: "+"mine exists and is not sysgate's")
		if _, err := os.Stat(filepath.Join(ws, "mine", "keep.txt")); err != nil {
			t.Errorf("the user's directory lost its file: %v", err)
		}
		if err := os.Symlink("mine", filepath.Join(ws, "link")); err != nil {
			t.Fatal(err)
		}
		badInput(t, e.run(t, runOpts{dir: ws, inputs: check("0", "reports=link")}), "reports: link is a symbolic link")
		// sysgate's own directory is emptied and reused.
		first := e.run(t, runOpts{dir: ws, inputs: check("0")})
		if first.code != 0 {
			t.Fatalf("clean run: exit %d", first.code)
		}
		writeFiles(t, ws, map[string]string{"sysgate-reports/stale.txt": "from before\n"})
		second := e.run(t, runOpts{dir: ws, inputs: check("0", "args=--grace=2s")})
		if second.code != 0 {
			t.Fatalf("second clean run (args --grace=2s): exit %d", second.code)
		}
		if _, err := os.Stat(filepath.Join(ws, "sysgate-reports", "stale.txt")); err == nil {
			t.Errorf("sysgate's reports directory was not emptied")
		}
		// Each leg of a matrix has an artifact of its own.
		a := filepath.Base(first.step(t, "upload").Outputs["artifact-url"])
		b := filepath.Base(second.step(t, "upload").Outputs["artifact-url"])
		if a == b || !strings.HasPrefix(a, "sysgate-dry-run-Linux-") || !strings.HasPrefix(b, "sysgate-dry-run-Linux-") {
			t.Errorf("artifact names %q and %q: want sysgate-<job>-<os>-<arch>-<hash>, different for different inputs", a, b)
		}
		// Temporaries lived under RUNNER_TEMP and are gone.
		for _, j := range []job{first, second} {
			left, _ := filepath.Glob(filepath.Join(j.out, "runner-temp", "sysgate.*"))
			if len(left) > 0 {
				t.Errorf("temporaries left under RUNNER_TEMP: %v", left)
			}
		}
	})

	t.Run("allow-agent-failure", func(t *testing.T) {
		if j := e.run(t, runOpts{dir: ws, inputs: check("3")}); j.code != 4 || j.res.Output("verdict") != "agent-failed" {
			t.Errorf("a failing agent: exit %d verdict %q, want 4 and agent-failed", j.code, j.res.Output("verdict"))
		}
		if j := e.run(t, runOpts{dir: ws, inputs: check("3", "allow-agent-failure=true")}); j.code != 0 {
			t.Errorf("a failing agent with allow-agent-failure: exit %d, want 0", j.code)
		}
	})

	t.Run("linux only", func(t *testing.T) {
		j := e.run(t, runOpts{dir: ws, inputs: check("0"), flags: []string{"--runner-os", "macOS"}})
		if p := j.step(t, "plan"); p.Outcome != actionrun.Failure || j.code != 2 {
			t.Errorf("plan step %s, job exit %d: want a failure with exit 2 before anything is installed", p.Outcome, j.code)
		}
		if s := j.step(t, "install"); s.Outcome != actionrun.Skipped {
			t.Errorf("install step %s on macOS, want skipped", s.Outcome)
		}
		if !strings.Contains(j.log, "Linux runners only") {
			t.Errorf("no error says the action runs on Linux only:\n%s", j.log)
		}
	})

	t.Run("doctor failure", func(t *testing.T) {
		// As nobody the audit backend cannot run: the doctor says so and
		// the action's outputs say inconclusive, not nothing.
		action := filepath.Join(e.base, "action-nobody")
		copyAction(t, e.checkout, action)
		home := filepath.Join(e.base, "home-nobody")
		wsNobody := filepath.Join(e.base, "agent-nobody")
		writeFiles(t, wsNobody, map[string]string{"agent.py": exitingAgent, "agent.yaml": string(base)})
		gitRepo(t, wsNobody)
		for _, d := range []string{wsNobody, home} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := chownTree(d, nobody); err != nil {
				t.Fatal(err)
			}
		}
		j := e.run(t, runOpts{dir: wsNobody, action: action, asUser: nobody, inputs: check("0", "backend=audit", "strict=false"),
			env: []string{"HOME=" + home, "GOCACHE=" + filepath.Join(home, "go-build")}})
		if d := j.step(t, "doctor"); d.Outcome != actionrun.Failure || j.code == 0 {
			t.Fatalf("doctor step %s, job exit %d: want a failed doctor", d.Outcome, j.code)
		}
		if v := j.res.Output("verdict"); v != "inconclusive" {
			t.Errorf("verdict=%q after a doctor failure, want inconclusive", v)
		}
	})
}
