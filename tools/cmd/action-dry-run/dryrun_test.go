package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/tools/internal/actionrun"
)

// The end-to-end dry run: sysgate's action.yml run by the dry run, as
// root on the real kernel, against sample agents in directories outside
// this checkout. Each subtest builds on the one before (the baseline a
// record wrote, the build the first run cached), so they run in order.

// nobody is the unprivileged user of the rootless subtest (a container
// job's or a rootless runner's user).
const nobody = 65534

// python is the real interpreter: pyenv's shim is a bash script whose own
// syscalls depend on the machine, not the agent.
const python = "/usr/bin/python3.11"

const agentScript = `import subprocess
print("hello from the agent")
subprocess.run(["/bin/sh", "-c", "echo one shell command"], check=True)
`

// newBehaviour is what the agent starts doing in the violation subtest:
// an AF_INET socket, which its baseline does not allow.
const newBehaviour = `import socket
socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
`

const specFile = `package myagent_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/ci/gatetest"
)

func TestMyAgent(t *testing.T) { RegisterFailHandler(Fail); RunSpecs(t, "my agent") }

var _ = It("stays within its baseline", func(ctx SpecContext) {
	result, err := gatetest.Run(ctx, harness.Agent{Name: "sample", Command: []string{"` + python + `", "agent.py"}},
		harness.WithBaselines("baselines/sample.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(result).To(gatetest.StayWithinBaseline())
})
`

// dryRunEnv is what the runs share: the checkout, the dry run binary, the
// actions/cache store, and the Go environment.
type dryRunEnv struct {
	checkout string // this sysgate checkout: the action
	base     string // every sample and output lives here (readable by nobody)
	binary   string // cmd/action-dry-run, built once
	cache    string // actions/cache's store, shared by every run
	goDir    string // the directory of the go command
	goEnv    []string
	runs     int
}

// job is one dry run's outcome.
type job struct {
	code int
	res  actionrun.Result
	out  string // its --out directory
	log  string // what it printed
}

func (j job) step(t *testing.T, id string) actionrun.StepResult {
	t.Helper()
	s := j.res.Step(id)
	if s == nil {
		t.Fatalf("no step %q in the dry run's result:\n%s", id, j.log)
	}
	return *s
}

func (j job) stepLog(t *testing.T, s actionrun.StepResult) string {
	t.Helper()
	if s.Log == "" {
		return ""
	}
	b, err := os.ReadFile(s.Log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runOpts is one dry run: the workspace, the inputs, and how it runs.
type runOpts struct {
	dir     string
	inputs  []string // NAME=VALUE
	script  bool     // through scripts/action-dry-run.sh instead of the binary
	action  string   // --action (default the checkout)
	asUser  int      // 0: as root
	asGroup int      // asUser's group (0: asUser)
	out     string   // --out (default a new directory under base)
	flags   []string // more flags of the dry run
	env     []string // more environment
	github  []string // --github KEY=VALUE
	event   string   // --event FILE
	// copied: run as a user does by default, in a copy of dir under
	// --out; else --in-place, so a record and the check after it share
	// dir as two jobs share the repository the record's patch went to.
	copied bool
}

func (e *dryRunEnv) run(t *testing.T, o runOpts) job {
	t.Helper()
	e.runs++
	out := o.out
	if out == "" {
		out = filepath.Join(e.base, fmt.Sprintf("out-%d", e.runs))
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	action := o.action
	if action == "" {
		action = e.checkout
	}
	args := []string{"--dir", o.dir, "--out", out, "--cache-dir", e.cache}
	if !o.copied {
		args = append(args, "--in-place")
	}
	for _, in := range o.inputs {
		args = append(args, "--input", in)
	}
	args = append(args, o.flags...)
	for _, g := range o.github {
		args = append(args, "--github", g)
	}
	if o.event != "" {
		args = append(args, "--event", o.event)
	}
	var cmd *exec.Cmd
	if o.script {
		cmd = exec.Command(filepath.Join(e.checkout, "scripts", "action-dry-run.sh"), args...)
	} else {
		cmd = exec.Command(e.binary, append([]string{"--action", action}, args...)...)
	}
	cmd.Dir = e.base
	cmd.Env = append(append([]string{}, e.goEnv...), o.env...)
	if o.asUser != 0 {
		gid := o.asGroup
		if gid == 0 {
			gid = o.asUser
		}
		if err := os.Chown(out, o.asUser, gid); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(o.asUser), Gid: uint32(gid), Groups: []uint32{}}}
	}
	start := time.Now()
	logb, err := cmd.CombinedOutput()
	t.Logf("dry run %d (%s): exit %v in %v", e.runs, strings.Join(o.inputs, " "), err, time.Since(start).Round(time.Millisecond))
	j := job{out: out, log: string(logb)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		j.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("dry run: %v\n%s", err, logb)
	}
	data, err := os.ReadFile(filepath.Join(out, "dry-run.json"))
	if err != nil {
		t.Fatalf("the dry run (exit %d) wrote no dry-run.json: %v\n%s", j.code, err, logb)
	}
	if err := json.Unmarshal(data, &j.res); err != nil {
		t.Fatalf("dry-run.json: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("dry run %d (exit %d):\n%s", e.runs, j.code, j.log)
		}
	})
	return j
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitRepo makes dir a git repository with its files committed, as the
// job's checkout would be.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "sample"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func newDryRunEnv(t *testing.T) *dryRunEnv {
	t.Helper()
	testutil.RequireAudit(t)
	testutil.RequireFile(t, python, "the sample agent's interpreter (apt-get install python3.11)")
	testutil.RequireCommand(t, "git", "the sample agents are git checkouts")
	goBin := testutil.RequireCommand(t, "go", "the action builds sysgate from source")
	checkout, err := filepath.Abs(checkoutDir)
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is private to root, and one subtest runs
	// as nobody.
	base, err := os.MkdirTemp("", "sysgate-action-dry-run-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &dryRunEnv{checkout: checkout, base: base, cache: filepath.Join(base, "cache"), goDir: filepath.Dir(goBin)}
	e.binary = filepath.Join(base, "bin", "action-dry-run")
	if out, err := exec.Command("go", "build", "-o", e.binary, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	vals := strings.Split(strings.TrimSpace(string(goenv)), "\n")
	e.goEnv = []string{
		"PATH=" + e.goDir + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + os.Getenv("HOME"),
		"GOCACHE=" + vals[0], "GOMODCACHE=" + vals[1], "GOPATH=" + vals[2],
		"LANG=C.UTF-8",
	}
	return e
}

func TestDryRun(t *testing.T) {
	e := newDryRunEnv(t)
	// The action's doctor and audit runs need the kernel's audit settings
	// as they are: hold the runs' lock, as a run does, so no fault test
	// (auditctltest.HoldExclusive) takes log out of actions_logged meanwhile.
	auditctltest.HoldTuning(t)
	ws := filepath.Join(e.base, "agent")
	writeFiles(t, ws, map[string]string{"agent.py": agentScript})
	gitRepo(t, ws)
	command := []string{"command=" + python + " agent.py", "baselines=agent.yaml", "agent=sample"}
	var recorded, strictFail, clean job

	ok := t.Run("command", func(t *testing.T) {
		recorded = e.run(t, runOpts{dir: ws, script: true, inputs: append(command, "mode=record")})
		if recorded.code != 0 || recorded.res.Job != actionrun.Success {
			t.Fatalf("record: exit %d, job %s", recorded.code, recorded.res.Job)
		}
		base, err := os.ReadFile(filepath.Join(ws, "agent.yaml"))
		if err != nil {
			t.Fatalf("record wrote no baseline: %v", err)
		}
		if !strings.Contains(string(base), "unreviewed") {
			t.Fatalf("the recorded baseline has no placeholder reason for /bin/sh:\n%s", base)
		}
		checkBaselineUpdate(t, recorded, ws, "agent.yaml")

		// strict (the default) refuses record's placeholder reasons.
		strictFail = e.run(t, runOpts{dir: ws, inputs: command})
		if strictFail.code != 2 || strictFail.res.Job != actionrun.Failure {
			t.Errorf("check of an unreviewed baseline: exit %d, job %s; want 2, failure", strictFail.code, strictFail.res.Job)
		}
		if g := strictFail.step(t, "gate"); g.Outcome != actionrun.Failure || g.ExitCode != 2 {
			t.Errorf("gate step: %s exit %d, want failure 2", g.Outcome, g.ExitCode)
		}
		if up := strictFail.step(t, "upload"); up.Outcome != actionrun.Skipped {
			t.Errorf("upload step %s: nothing ran, so nothing is uploaded (and no second error)", up.Outcome)
		}
		lines := strings.Split(string(base), "\n")
		found := false
		for _, a := range strictFail.res.Annotations {
			if a.Level == "error" && a.File == "agent.yaml" && a.Line > 0 && a.Line <= len(lines) &&
				strings.Contains(lines[a.Line-1]+lines[min(a.Line, len(lines)-1)], "unreviewed") {
				found = true
			}
		}
		if !found {
			t.Errorf("no error annotation names agent.yaml and the line of the placeholder reason: %+v", strictFail.res.Annotations)
		}

		// A reviewer replaces the placeholders; the layout stays canonical.
		reviewed := strings.ReplaceAll(string(base), "unreviewed: seen in record mode", "the agent runs one shell command")
		writeFiles(t, ws, map[string]string{"agent.yaml": reviewed})
		sysgate := filepath.Join(recorded.step(t, "plan").Outputs["bin-dir"], "sysgate")
		if out, err := exec.Command(sysgate, "baseline", "fmt", "-w", filepath.Join(ws, "agent.yaml")).CombinedOutput(); err != nil {
			t.Fatalf("baseline fmt -w: %v\n%s", err, out)
		}

		clean = e.run(t, runOpts{dir: ws, inputs: command})
		if clean.code != 0 || clean.res.Job != actionrun.Success {
			t.Fatalf("check of the reviewed baseline: exit %d, job %s", clean.code, clean.res.Job)
		}
		if v, n := clean.res.Output("verdict"), clean.res.Output("violations"); v != "clean" || n != "0" {
			t.Errorf("outputs verdict=%q violations=%q, want clean and 0", v, n)
		}
		checkUnverifiedCounted(t, clean)
		reports := clean.res.Output("reports")
		if reports != filepath.Join(ws, "sysgate-reports") {
			t.Errorf("output reports=%q, want the workspace's sysgate-reports", reports)
		}
		artifact := strings.TrimPrefix(clean.step(t, "upload").Outputs["artifact-url"], "file://")
		if !strings.HasPrefix(artifact, clean.res.Artifacts+"/") {
			t.Errorf("the upload step's artifact-url %q is not under the dry run's artifacts", artifact)
		}
		for _, f := range []string{"result.json", "junit.xml", "sysgate.sarif", "summary.md"} {
			if fi, err := os.Stat(filepath.Join(reports, f)); err != nil || fi.Size() == 0 {
				t.Errorf("reports: %s: %v", f, err)
			}
			if _, err := os.Stat(filepath.Join(artifact, f)); err != nil {
				t.Errorf("the artifact lacks %s: %v", f, err)
			}
		}
		checkSARIF(t, clean.res.Output("sarif"))
		if fi, err := os.Stat(clean.res.Summary); err != nil || fi.Size() == 0 {
			t.Errorf("GITHUB_STEP_SUMMARY is empty: %v", err)
		}
	})
	if !ok {
		return
	}

	t.Run("violation", func(t *testing.T) {
		writeFiles(t, ws, map[string]string{"agent.py": agentScript + newBehaviour})
		j := e.run(t, runOpts{dir: ws, inputs: command})
		if j.code != 1 || j.res.Job != actionrun.Failure {
			t.Errorf("an agent opening an AF_INET socket: exit %d, job %s; want 1, failure", j.code, j.res.Job)
		}
		if v := j.res.Output("verdict"); v != "violation" {
			t.Errorf("verdict=%q, want violation", v)
		}
		if n, err := strconv.Atoi(j.res.Output("violations")); err != nil || n < 1 {
			t.Errorf("violations=%q, want at least 1", j.res.Output("violations"))
		}
		found := false
		for _, a := range j.res.Annotations {
			found = found || a.Level == "error" && a.File == "agent.yaml" && a.Line > 0 && strings.Contains(a.Message, "socket(AF_INET)")
		}
		if !found {
			t.Errorf("no error annotation names agent.yaml:LINE and socket(AF_INET): %+v", j.res.Annotations)
		}
		// The gate step fails with sysgate's own exit code: no later step
		// decides the verdict.
		gate := j.step(t, "gate")
		if gate.Outcome != actionrun.Failure || gate.ExitCode != 1 || !strings.Contains(j.stepLog(t, gate), "violation:") {
			t.Errorf("gate step: %s exit %d; want a failure with exit 1 that says violation:\n%s", gate.Outcome, gate.ExitCode, j.stepLog(t, gate))
		}
		if up := j.step(t, "upload"); up.Outcome != actionrun.Success {
			t.Errorf("the reports of a violation must be uploaded: upload step %s", up.Outcome)
		}
		writeFiles(t, ws, map[string]string{"agent.py": agentScript})
	})

	t.Run("cache", func(t *testing.T) {
		// The first run built sysgate and cached it; every later run (each
		// with an empty tool cache, as a new hosted runner) restored it.
		if got := recorded.stepLog(t, recorded.step(t, "install")); !strings.Contains(got, "building") {
			t.Errorf("first run's install step did not build: %q", got)
		}
		if s := recorded.step(t, "save"); s.Outcome != actionrun.Success {
			t.Errorf("first run's save step: %s", s.Outcome)
		}
		for i, j := range []job{strictFail, clean} {
			if hit := j.step(t, "cache").Outputs["cache-hit"]; hit != "true" {
				t.Errorf("run %d: cache-hit=%q, want true", i+2, hit)
			}
			if got := j.stepLog(t, j.step(t, "install")); !strings.Contains(got, "sysgate: cached:") {
				t.Errorf("run %d rebuilt sysgate instead of using the cached build: %q", i+2, got)
			}
			if s := j.step(t, "save"); s.Outcome != actionrun.Skipped {
				t.Errorf("run %d saved the cache again: %s", i+2, s.Outcome)
			}
		}
	})

	t.Run("packages", func(t *testing.T) {
		mod := filepath.Join(e.base, "gomod")
		goEnv := testutil.UserModule(t, mod, e.checkout, "example.com/myagent", map[string]string{
			"agent.py":              "print('hello from the agent')\n",
			"gate_test.go":          specFile,
			"baselines/sample.yaml": "version: 1\nagent: sample\nsyscalls:\n  x86_64:\n    - exit_group\n",
		})
		gitRepo(t, mod)
		pkgs := []string{"packages=./...", "baselines=baselines"}
		rec := e.run(t, runOpts{dir: mod, inputs: append(pkgs, "mode=record"), env: goEnv})
		if rec.code != 0 || rec.res.Output("verdict") != "recorded" {
			t.Fatalf("packages record: exit %d verdict %q, want 0 and recorded", rec.code, rec.res.Output("verdict"))
		}
		learned, err := os.ReadFile(filepath.Join(mod, "baselines", "sample.yaml"))
		if err != nil || !strings.Contains(string(learned), "openat") {
			t.Fatalf("the spec's baseline was not updated from its observation: %v\n%s", err, learned)
		}
		for _, f := range []string{"ginkgo-1.json", "observations/sample.json", "baseline-update.md"} {
			if _, err := os.Stat(filepath.Join(rec.res.Output("reports"), f)); err != nil {
				t.Errorf("record reports: %v", err)
			}
		}
		checkBaselineUpdate(t, rec, mod, "baselines/sample.yaml")
		check := e.run(t, runOpts{dir: mod, inputs: pkgs, env: goEnv})
		if check.code != 0 || check.res.Output("verdict") != "clean" {
			t.Errorf("packages check: exit %d verdict %q, want 0 and clean", check.code, check.res.Output("verdict"))
		}
		// The specs' agents could not write the runner's paths either: the
		// report names the file-command directory read-only.
		report, err := os.ReadFile(filepath.Join(check.res.Output("reports"), "ginkgo-1.json"))
		fileCommands := filepath.Join(check.out, "runner-temp", "_runner_file_commands")
		if err != nil || !strings.Contains(string(report), "read_only") || !strings.Contains(string(report), fileCommands) {
			t.Errorf("the Ginkgo report does not name %s read-only for the agent (%v)", fileCommands, err)
		}
	})

	t.Run("unprivileged", func(t *testing.T) {
		// As nobody, as in a container: job or on a rootless runner. The
		// action is a copy nobody can read (the checkout may live under
		// /root), and its build comes from the cache the root runs filled.
		action := filepath.Join(e.base, "action")
		copyAction(t, e.checkout, action)
		home := filepath.Join(e.base, "nobody")
		wsNobody := filepath.Join(e.base, "agent-nobody")
		baseline, err := os.ReadFile(filepath.Join(ws, "agent.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, wsNobody, map[string]string{"agent.py": agentScript, "agent.yaml": string(baseline)})
		gitRepo(t, wsNobody)
		for _, d := range []string{wsNobody, home} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := chownTree(d, nobody); err != nil {
				t.Fatal(err)
			}
		}
		j := e.run(t, runOpts{dir: wsNobody, action: action, asUser: nobody, inputs: command,
			env: []string{"HOME=" + home, "GOCACHE=" + filepath.Join(home, "go-build")}})
		if j.code != 0 || j.res.Output("verdict") != "clean" {
			t.Errorf("as nobody: exit %d verdict %q, want 0 and clean", j.code, j.res.Output("verdict"))
		}
		if got := j.stepLog(t, j.step(t, "doctor")); !strings.Contains(got, "auto    runs notify") {
			t.Errorf("the doctor step did not pick notify for nobody:\n%s", got)
		}
		if got := j.stepLog(t, j.step(t, "gate")); !strings.Contains(got, "backend: notify") {
			t.Errorf("the gate did not run on notify:\n%s", got)
		}
		if got := j.stepLog(t, j.step(t, "install")); !strings.Contains(got, "sysgate: cached:") {
			t.Errorf("nobody's install step did not take the cached build:\n%s", got)
		}
	})
}

// checkSARIF: the gate's SARIF is JSON in SARIF 2.1.0's shape.
func checkSARIF(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("sarif output: %v", err)
	}
	var doc struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct{ Name string } `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != "2.1.0" || len(doc.Runs) == 0 || doc.Runs[0].Tool.Driver.Name == "" {
		t.Errorf("%s is not a SARIF 2.1.0 log with a run: %v\n%s", path, err, b)
	}
}

// copyAction copies what the action runs and hashes for its cache key.
func copyAction(t *testing.T, from, to string) {
	t.Helper()
	for _, p := range []string{"action.yml", "scripts", "go.mod", "go.sum", "cmd", "auditlog", "baseline", "ci", "harness", "internal"} {
		err := filepath.WalkDir(filepath.Join(from, p), func(src string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(from, src)
			dst := filepath.Join(to, rel)
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			b, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, fi.Mode().Perm()|0o444)
		})
		if err != nil {
			t.Fatalf("copy the action: %v", err)
		}
	}
}

func chownTree(dir string, id int) error {
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, id, id)
	})
}
