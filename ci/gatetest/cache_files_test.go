package gatetest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

func TestAgentFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "server.js"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	agent := harness.Agent{Command: []string{"node", "server.js", "--root", "missing.js"}}
	r := &verdict.Result{
		Programs: []verdict.ProgramRun{{Path: "/usr/bin/node"}, {Path: "memfd:x"}},
		Observed: &baseline.Observation{
			Programs: map[string]uint64{"/usr/bin/node": 1},
			Files: map[string]map[string]uint64{
				"{workspace}/node_modules/x/lib.js": {"read": 1},
				"/etc/hosts":                        {"read": 1},
				"{home}/.npmrc":                     {"read": 1},
			},
		},
	}
	got := agentFiles(agent, r, dir)
	for _, want := range []string{"/usr/bin/node", dir + "/node_modules/x/lib.js", "/etc/hosts", filepath.Join(dir, "server.js")} {
		if !slices.Contains(got, want) {
			t.Errorf("agentFiles: %q missing from %q", want, got)
		}
	}
	for _, not := range []string{"memfd:x", "{home}/.npmrc", filepath.Join(dir, "missing.js"), filepath.Join(dir, "--root")} {
		if slices.Contains(got, not) {
			t.Errorf("agentFiles: %q in %q", not, got)
		}
	}
	// An own root file system's paths name no file of the host.
	r.Root = "/srv/root"
	if got := agentFiles(agent, r, dir); len(got) != 0 {
		t.Errorf("agentFiles with a Root: %q, want none", got)
	}
}

func TestPackageTrees(t *testing.T) {
	got := packageTrees([]string{
		"/repo/suites/node_modules/@mcp/server/dist/index.js",
		"/repo/suites/node_modules/@mcp/server/node_modules/x/lib.js",
		"/venv/lib/python3.12/site-packages/srv/__main__.py",
		"/usr/bin/node",
		"/repo/node_modules",
	})
	want := []string{"/repo/suites/node_modules", "/venv/lib/python3.12/site-packages"}
	if !slices.Equal(got, want) {
		t.Errorf("packageTrees = %q, want %q", got, want)
	}
}

func TestInside(t *testing.T) {
	for _, c := range []struct {
		dir, root string
		want      bool
	}{
		{"/m", "/m", true},
		{"/m/ws", "/m", true},
		{"/", "/m", false},
		{"/root", "/m", false},
		{"/m2", "/m", false},
		{"/m/..x", "/m", true},
		{"/m/ws", "", false},
		{"", "/m", false},
	} {
		if got := inside(c.dir, c.root); got != c.want {
			t.Errorf("inside(%q, %q) = %v, want %v", c.dir, c.root, got, c.want)
		}
	}
}
