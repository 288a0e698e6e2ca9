package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func observe(t *testing.T, dir, agent string, names ...string) {
	t.Helper()
	o := baseline.NewObservation(agent)
	o.Runs = 1
	for _, n := range names {
		o.Add(scmp.X86_64, n, 1)
	}
	if err := baseline.WriteObservation(filepath.Join(dir, agent+".json"), o); err != nil {
		t.Fatal(err)
	}
}

// The runtime base is written first, so a syscall that moves into it
// leaves the agent file; reasons survive; a second run changes nothing.
func TestBasesFirstReasonsKeptIdempotent(t *testing.T) {
	base, obs := t.TempDir(), t.TempDir()
	write(t, filepath.Join(base, "runtimes", "rt.yaml"), "version: 1\nagent: runtimes-rt\nsyscalls:\n  x86_64:\n    - read\n")
	write(t, filepath.Join(base, "agents", "a.yaml"), "version: 1\nagent: agent-a\nextends:\n  - ../runtimes/rt.yaml\n"+
		"syscalls:\n  x86_64:\n    - openat\n    - socket: talks to the spec's loopback server\n")
	observe(t, obs, "runtimes-rt", "read", "openat")
	observe(t, obs, "agent-a", "read", "openat", "socket", "connect")

	var out strings.Builder
	if err := run(&out, obs, base, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "+ x86_64   connect") || !strings.Contains(out.String(), "- x86_64   openat") {
		t.Errorf("report lacks the changes:\n%s", out.String())
	}
	rt, _ := os.ReadFile(filepath.Join(base, "runtimes", "rt.yaml"))
	a, _ := os.ReadFile(filepath.Join(base, "agents", "a.yaml"))
	if !strings.Contains(string(rt), "- openat") {
		t.Errorf("runtime base lacks openat:\n%s", rt)
	}
	if strings.Contains(string(a), "openat") || !strings.Contains(string(a), "- connect") ||
		!strings.Contains(string(a), "talks to the spec's loopback server") {
		t.Errorf("agent file: want connect added, openat moved to the base, socket's reason kept:\n%s", a)
	}
	out.Reset()
	if err := run(&out, obs, base, true); err != nil || out.String() != "baselines unchanged\n" {
		t.Errorf("second run = %q, %v; want unchanged", out.String(), err)
	}
	again, _ := os.ReadFile(filepath.Join(base, "agents", "a.yaml"))
	if string(again) != string(a) {
		t.Errorf("second run changed the file:\n%s\nthen\n%s", a, again)
	}
}

func TestObservationWithoutBaselineFileIsAnError(t *testing.T) {
	base, obs := t.TempDir(), t.TempDir()
	write(t, filepath.Join(base, "x.yaml"), "version: 1\nagent: known\nsyscalls:\n  x86_64:\n    - read\n")
	observe(t, obs, "stranger", "read")
	var out strings.Builder
	if err := run(&out, obs, base, true); err == nil || !strings.Contains(err.Error(), "agent: stranger") {
		t.Fatalf("run = %v, want an error naming the agent without a file", err)
	}
}
