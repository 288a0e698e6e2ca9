package gatetest_test

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// cacheSpec is a user's spec in a module of its own (fmt.Sprintf with the
// agent's directory and command): the agent is a shell script that
// sources lib.sh, a file only the agent reads.
const cacheSpec = `package cachespec_test

import (
	"context"
	"testing"

	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/harness"
)

func TestAgent(t *testing.T) {
	r, err := gatetest.Run(context.Background(), harness.Agent{Name: "agent", Dir: %q, Command: []string{"/bin/sh", %q}},
		harness.WithBaselines("agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := gatetest.Err(r); err != nil {
		t.Fatal(err)
	}
}
`

// TestChangedAgentIsNotCached is issue #46 item 1: an agent changed after
// a passing `go test` (a file it reads, which the test process never
// opens) got "ok ... (cached)" instead of a run that fails the gate.
// The agent lies in its own directory, or, as an MCP server does, in a
// node_modules tree outside it, with lib.sh in another package there.
func TestChangedAgentIsNotCached(t *testing.T) {
	t.Run("workspace", func(t *testing.T) {
		changedAgentIsNotCached(t, ".", "agent.sh", map[string]string{"agent.sh": ". ./lib.sh\n"}, "lib.sh")
	})
	t.Run("node_modules", func(t *testing.T) {
		changedAgentIsNotCached(t, "ws", "../node_modules/srv/agent.sh", map[string]string{
			"ws/.keep":                  "",
			"node_modules/srv/agent.sh": ". \"$(dirname \"$0\")/../dep/lib.sh\"\n",
		}, "node_modules/dep/lib.sh")
	})
}

// changedAgentIsNotCached runs the case of an agent started as
// /bin/sh script in dir, with agent files besides lib (relative to the
// module).
func changedAgentIsNotCached(t *testing.T, dir, script string, agentFiles map[string]string, lib string) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("this test runs the go command on a spec: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	modText := strings.Replace(string(goMod), "module github.com/sysgate/sysgate", "module cachespec", 1) +
		"\nrequire github.com/sysgate/sysgate v0.0.0\n\nreplace github.com/sysgate/sysgate => " + root + "\n"
	files := map[string]string{
		"go.mod":        modText,
		"go.sum":        string(goSum),
		"agent_test.go": fmt.Sprintf(cacheSpec, dir, script),
		lib:             "echo hello\n",
	}
	maps.Copy(files, agentFiles)
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The baseline: a record run of the unchanged agent.
	agent := harness.Agent{Name: "agent", Command: []string{"/bin/sh", script}, Dir: filepath.Join(mod, dir)}
	obsPath := filepath.Join(t.TempDir(), "agent.json")
	r, err := gatetest.Run(t.Context(), agent, harness.WithMode(baseline.ModeRecord), harness.WithObservationFile(obsPath))
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict == verdict.VerdictInconclusive {
		t.Fatalf("record run inconclusive: %s", r.Inconclusive)
	}
	obs, err := baseline.ReadObservation(obsPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := baseline.WriteRecorded(filepath.Join(mod, "agent.yaml"), obs, baseline.RecordOptions{Agent: "agent"}); err != nil {
		t.Fatal(err)
	}
	// The go command caches no result of a test that opened a file
	// younger than two seconds: age every file, as a checkout's are.
	age(t, mod, time.Now().Add(-time.Hour))

	// The build cache is the caller's: a build of sysgate's packages in an
	// empty one took most of ten minutes on a loaded CI machine. No
	// earlier result can be reused: the module's path is new, and the
	// test binary holds it. GOFLAGS is cleared (a -count=1 there would
	// hide the cache).
	env := []string{"GOFLAGS=", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOFLAGS", "GOPROXY", "GOWORK", "GOTOOLCHAIN",
			gatetest.EnvMode, gatetest.EnvObservations, gatetest.EnvIncremental, gatetest.EnvBaselines:
			continue
		}
		env = append(env, kv)
	}
	goTest := func() (string, error) {
		cmd := exec.CommandContext(t.Context(), goCmd, "test", ".")
		cmd.Dir, cmd.Env = mod, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	if out, err := goTest(); err != nil || strings.Contains(out, "(cached)") {
		t.Fatalf("first go test: want a fresh pass, got %v:\n%s", err, out)
	}
	if out, err := goTest(); err != nil || !strings.Contains(out, "(cached)") {
		t.Fatalf("second go test: want a cached pass, got %v:\n%s", err, out)
	}

	// The agent changes: lib.sh now runs a program the baseline lacks.
	lib = filepath.Join(mod, lib)
	if err := os.WriteFile(lib, []byte("echo hello\n/bin/true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Old enough for the cache's two-second rule, so only the change counts.
	then := time.Now().Add(-30 * time.Minute)
	if err := os.Chtimes(lib, then, then); err != nil {
		t.Fatal(err)
	}
	out, err := goTest()
	if strings.Contains(out, "(cached)") {
		t.Fatalf("go test after the agent changed: a cached result:\n%s", out)
	}
	if err == nil {
		t.Fatalf("go test after the agent changed: the changed agent passed the gate:\n%s", out)
	}
	if !strings.Contains(out, "/usr/bin/true") {
		t.Fatalf("go test after the agent changed: the failure does not name the new program /usr/bin/true:\n%s", out)
	}
}

// age sets the times of every file under dir to when.
func age(t *testing.T, dir string, when time.Time) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}
