package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/tools/internal/actionrun"
)

// Issue 33, item 3: a pull request that widens its agent's baseline in the
// commit that makes the agent need it is judged by its own baseline, and
// the gate alone is green. The action compares the pull request's
// baselines with its base commit's (read with git, never checked out) and
// makes the widening a signal of its own: a section, annotations on the
// added lines, widened=true, and with on-widening: fail a red job.

// unusedEntry is in the base's baseline and no run of the agent needs it:
// the narrowing pull request drops it.
// switchableAgent opens its AF_INET socket only once the pull request
// adds the file "net": the agent's file and its pin stay as the base had
// them.
const switchableAgent = agentScript + `import os, socket
if os.path.exists("net"):
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
`

const unusedEntry = "mq_notify: kept for the narrowing test"

func TestDryRunWidening(t *testing.T) {
	e := newDryRunEnv(t)
	auditctltest.HoldTuning(t)
	ws := filepath.Join(e.base, "agent")
	writeFiles(t, ws, map[string]string{"agent.py": switchableAgent, ".gitignore": "sysgate-reports/\n"})
	gitRepo(t, ws)
	command := []string{"command=" + python + " agent.py", "baselines=agent.yaml", "agent=sample"}

	// The base commit: a recorded, reviewed baseline.
	rec := e.run(t, runOpts{dir: ws, inputs: append(command, "mode=record")})
	if rec.code != 0 {
		t.Fatalf("record: exit %d", rec.code)
	}
	sysgate := filepath.Join(rec.step(t, "plan").Outputs["bin-dir"], "sysgate")
	reviewed := strings.ReplaceAll(readFile(t, filepath.Join(ws, "agent.yaml")), "unreviewed: seen in record mode", "the agent runs one shell command")
	setBaseline(t, sysgate, ws, addEntry(t, reviewed, unusedEntry))
	reviewed = readFile(t, filepath.Join(ws, "agent.yaml"))
	gitCommit(t, ws, "base")
	baseSHA := gitOut(t, ws, "rev-parse", "HEAD")

	// The pull request: the agent opens an AF_INET socket, and the same
	// commit allows it.
	writeFiles(t, ws, map[string]string{"net": "on\n"})
	setBaseline(t, sysgate, ws, addEntry(t, reviewed, "socket(AF_INET): calls the model API"))
	gitCommit(t, ws, "widen")
	widenedLine := lineOf(t, readFile(t, filepath.Join(ws, "agent.yaml")), "socket(AF_INET)")

	event := filepath.Join(e.base, "pull_request.json")
	payload, _ := json.Marshal(map[string]any{"pull_request": map[string]any{"base": map[string]any{"sha": baseSHA}}})
	if err := os.WriteFile(event, payload, 0o644); err != nil {
		t.Fatal(err)
	}
	pr := func(t *testing.T, inputs ...string) job {
		t.Helper()
		return e.run(t, runOpts{dir: ws, inputs: append(append([]string{}, command...), inputs...),
			github: []string{"event_name=pull_request"}, event: event})
	}
	summary := func(j job) string { return readFile(t, j.res.Summary) }

	t.Run("warn", func(t *testing.T) {
		j := pr(t) // on-widening: warn is the default
		if j.code != 0 || j.res.Job != actionrun.Success || j.res.Output("verdict") != "clean" {
			t.Errorf("warn: exit %d, job %s, verdict %q; want a green job (the PR's own baseline allows the socket)", j.code, j.res.Job, j.res.Output("verdict"))
		}
		if w := j.res.Output("widened"); w != "true" {
			t.Errorf("widened=%q, want true", w)
		}
		if s := summary(j); !strings.Contains(s, "This pull request widens the baseline") || !strings.Contains(s, "socket(AF_INET)") {
			t.Errorf("the step summary has no widening section naming socket(AF_INET):\n%s", s)
		}
		if !hasAnnotation(j, "warning", "agent.yaml", widenedLine, "socket(AF_INET)") {
			t.Errorf("no warning annotation on agent.yaml:%d naming socket(AF_INET): %+v", widenedLine, j.res.Annotations)
		}
		if v := j.step(t, "widening-verdict"); v.Outcome != actionrun.Skipped {
			t.Errorf("widening verdict step under warn: %s, want skipped", v.Outcome)
		}
	})

	t.Run("fail", func(t *testing.T) {
		j := pr(t, "on-widening=fail")
		if j.code == 0 || j.res.Job != actionrun.Failure {
			t.Errorf("on-widening: fail: exit %d, job %s; want a red job", j.code, j.res.Job)
		}
		if w := j.res.Output("widened"); w != "true" {
			t.Errorf("widened=%q, want true", w)
		}
		if !hasAnnotation(j, "error", "agent.yaml", widenedLine, "socket(AF_INET)") {
			t.Errorf("no error annotation on agent.yaml:%d naming socket(AF_INET): %+v", widenedLine, j.res.Annotations)
		}
		if g := j.step(t, "gate"); g.Outcome != actionrun.Success {
			t.Errorf("the gate step: %s; the agent still runs and is clean against the PR's baseline", g.Outcome)
		}
		v := j.step(t, "widening-verdict")
		if log := j.stepLog(t, v); v.Outcome != actionrun.Failure || v.ExitCode != 1 || !strings.Contains(log, "agent.yaml:") || !strings.Contains(log, "socket(AF_INET)") {
			t.Errorf("widening verdict step: %s exit %d, log %q; want a failure naming agent.yaml:LINE socket(AF_INET)", v.Outcome, v.ExitCode, log)
		}
		t.Logf("the widening verdict: %s", strings.TrimSpace(j.stepLog(t, v)))
	})

	t.Run("shallow", func(t *testing.T) {
		// actions/checkout's default: one commit, without the base. The
		// action fetches the base from origin.
		shallow := filepath.Join(e.base, "shallow")
		if out, err := exec.Command("git", "clone", "-q", "--depth=1", "file://"+ws, shallow).CombinedOutput(); err != nil {
			t.Fatalf("git clone --depth=1: %v\n%s", err, out)
		}
		if exec.Command("git", "-C", shallow, "cat-file", "-e", baseSHA+"^{commit}").Run() == nil {
			t.Fatal("the shallow clone has the base commit: the fetch is not tested")
		}
		j := e.run(t, runOpts{dir: shallow, inputs: command, github: []string{"event_name=pull_request"}, event: event})
		if j.code != 0 || j.res.Output("widened") != "true" {
			t.Errorf("a shallow checkout: exit %d widened=%q, want 0 and true (the base fetched)", j.code, j.res.Output("widened"))
		}
	})

	t.Run("narrow", func(t *testing.T) {
		gitOut(t, ws, "checkout", "-q", "-b", "narrow", baseSHA) // without net
		var kept []string
		for _, l := range strings.SplitAfter(reviewed, "\n") {
			if !strings.Contains(l, unusedEntry) {
				kept = append(kept, l)
			}
		}
		setBaseline(t, sysgate, ws, strings.Join(kept, ""))
		gitCommit(t, ws, "narrow")
		j := pr(t, "on-widening=fail")
		if j.code != 0 || j.res.Job != actionrun.Success {
			t.Errorf("a narrowing pull request: exit %d, job %s; want green", j.code, j.res.Job)
		}
		if w := j.res.Output("widened"); w != "false" {
			t.Errorf("widened=%q, want false", w)
		}
		if s := summary(j); strings.Contains(s, "widens the baseline") {
			t.Errorf("a narrowing pull request has a widening section:\n%s", s)
		}
	})

	t.Run("push", func(t *testing.T) {
		// Not a pull request: nothing to compare with, widened stays empty.
		j := e.run(t, runOpts{dir: ws, inputs: command})
		if j.code != 0 || j.res.Output("widened") != "" {
			t.Errorf("a push: exit %d widened=%q, want 0 and empty", j.code, j.res.Output("widened"))
		}
	})
}

// addEntry puts entry first in the syscalls' x86_64 list, indented as the list is
// (baseline fmt then sorts it).
func addEntry(t *testing.T, content, entry string) string {
	t.Helper()
	head, rest, ok := strings.Cut(content, "syscalls:\n  x86_64:\n")
	indent, _, _ := strings.Cut(rest, "-")
	if !ok || strings.TrimSpace(indent) != "" {
		t.Fatalf("no x86_64 list to add %s to:\n%s", entry, content)
	}
	return head + "syscalls:\n  x86_64:\n" + indent + "- " + entry + "\n" + rest
}

func hasAnnotation(j job, level, file string, line int, text string) bool {
	for _, a := range j.res.Annotations {
		if a.Level == level && a.File == file && a.Line == line && strings.Contains(a.Message, text) {
			return true
		}
	}
	return false
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// setBaseline writes agent.yaml in the canonical layout the gate requires.
func setBaseline(t *testing.T, sysgate, ws, content string) {
	t.Helper()
	writeFiles(t, ws, map[string]string{"agent.yaml": content})
	if out, err := exec.Command(sysgate, "baseline", "fmt", "-w", filepath.Join(ws, "agent.yaml")).CombinedOutput(); err != nil {
		t.Fatalf("baseline fmt -w: %v\n%s", err, out)
	}
}

func gitCommit(t *testing.T, dir, msg string) {
	t.Helper()
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", msg)
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func lineOf(t *testing.T, content, text string) int {
	t.Helper()
	for i, l := range strings.Split(content, "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q:\n%s", text, content)
	return 0
}

// Issue 43, item 7: the widening step judged the runtime layer the
// python3 on its PATH picks; the gate's run picks the one its command's
// interpreter ("#!") does. A pull request that widened only that layer,
// outside the baselines input, was "no widening" (widened=false). The
// step now passes the command, and judges the layer the run loads.
func TestDryRunWideningOfTheRunsLayer(t *testing.T) {
	e := newDryRunEnv(t)
	home, _ := os.UserHomeDir()
	var other, version string
	candidates, _ := filepath.Glob("/usr/bin/python3.1[2-9]")
	more, _ := filepath.Glob(filepath.Join(home, ".pyenv", "versions", "3.1[2-9].*", "bin", "python3"))
	for _, c := range append(candidates, more...) {
		out, err := exec.Command(c, "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
		if err == nil {
			other, version = c, strings.TrimSpace(string(out))
			break
		}
	}
	if other == "" {
		testutil.Unavailable(t, "python", "no CPython 3.12 or later beside "+python+" (/usr/bin/python3.1x, ~/.pyenv/versions)")
	}
	ws := filepath.Join(e.base, "agent")
	layer := "version: 1\nsyscalls:\n  x86_64:\n    - read\n"
	runLayer := "runtimes/python-" + version + ".yaml"
	writeFiles(t, ws, map[string]string{
		"agent.py":                  "#!" + other + "\nprint('hello')\n",
		"baselines/agent.yaml":      "version: 1\nagent: sample\nextends:\n  - ../runtimes/python-{python}.yaml\nsyscalls:\n  x86_64:\n    - getpid\n",
		"runtimes/python-3.11.yaml": layer, runLayer: layer, ".gitignore": "sysgate-reports/\n",
	})
	if err := os.Chmod(filepath.Join(ws, "agent.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, ws)
	baseSHA := gitOut(t, ws, "rev-parse", "HEAD")
	writeFiles(t, ws, map[string]string{runLayer: layer + "    - socket(AF_INET): calls home\n"})
	gitCommit(t, ws, "widen the run's layer")

	event := filepath.Join(e.base, "pull_request.json")
	payload, _ := json.Marshal(map[string]any{"pull_request": map[string]any{"base": map[string]any{"sha": baseSHA}}})
	if err := os.WriteFile(event, payload, 0o644); err != nil {
		t.Fatal(err)
	}
	// The gate's verdict does not matter here (the hand-written layers are
	// no recording): the widening step runs before it.
	j := e.run(t, runOpts{dir: ws, inputs: []string{"command=./agent.py", "baselines=baselines", "strict=false"},
		github: []string{"event_name=pull_request"}, event: event})
	if w := j.res.Output("widened"); w != "true" {
		t.Errorf("widened=%q, want true: the layer the run loads (%s) widened", w, runLayer)
	}
	if !hasAnnotation(j, "warning", runLayer, lineOf(t, readFile(t, filepath.Join(ws, runLayer)), "socket(AF_INET)"), "socket(AF_INET)") {
		t.Errorf("no warning annotation on %s naming socket(AF_INET): %+v", runLayer, j.res.Annotations)
	}

	// Without a command (a packages job: its specs name the commands)
	// the {python} layer cannot be told: the step cannot judge the
	// widening, and never says false. The gate then refuses the inputs.
	notJudged := []string{"baselines=baselines", "strict=false"}
	j = e.run(t, runOpts{dir: ws, inputs: notJudged, github: []string{"event_name=pull_request"}, event: event})
	if w := j.res.Output("widened"); w != "" || !hasAnnotation(j, "warning", "", 0, "was not judged") {
		t.Errorf("warn, not judged: widened=%q, annotations %+v; want empty and a warning", w, j.res.Annotations)
	}
	j = e.run(t, runOpts{dir: ws, inputs: append(notJudged, "on-widening=fail"), github: []string{"event_name=pull_request"}, event: event})
	if s := j.step(t, "widening"); s.Outcome != actionrun.Failure || s.ExitCode != 3 {
		t.Errorf("on-widening: fail, not judged: the widening step %s exit %d, want a failure with exit 3", s.Outcome, s.ExitCode)
	}
}
