package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/ci/mcptest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// docs/mcp.md's first baseline on a machine that has nothing from
// sysgate's repository: seed the node runtime's layer with record
// --runtime, write the server's file as version, agent and an extends
// of that layer, record the spec's session into it (record mode, an
// observation file, report pr-body --write), and the same session
// checks clean. The server is the suites' npm
// @modelcontextprotocol/server-filesystem, driven through ci/mcptest.
// On both backends.
func TestSeededRuntimeLayerLetsAnMCPServerPass(t *testing.T) {
	suites, err := filepath.Abs(filepath.Join("..", "..", "..", "suites"))
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join("node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	if _, err := os.Stat(filepath.Join(suites, entry)); err != nil {
		t.Fatalf("%v: run make deps-suites", err)
	}
	for _, backend := range []string{"audit", "notify"} {
		t.Run(backend, func(t *testing.T) {
			requireBackend(t, backend)
			dir := t.TempDir()
			baselines := filepath.Join(dir, "baselines")
			layer := filepath.Join(baselines, "runtimes", "node.yaml")
			if code, _, stderr := runAgentVerb(t, "record", "--runtime", "node", "--backend", backend, "-o", layer); code != ExitOK {
				t.Fatalf("record --runtime node: %d\n%s", code, stderr)
			}
			text, err := os.ReadFile(layer)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(text), "agent: runtime-node\n") || !strings.Contains(string(text), "sysgate record --runtime node -o "+layer) {
				t.Errorf("the layer does not say what it is and how to regenerate it:\n%s", text)
			}
			mine := filepath.Join(baselines, "my-server.yaml")
			if err := os.WriteFile(mine, []byte("version: 1\nagent: my-server\nextends:\n  - runtimes/node.yaml\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			allowed := t.TempDir()
			if err := os.WriteFile(filepath.Join(allowed, "README.md"), []byte("# demo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			server := harness.Agent{Name: "my-server", Dir: suites, Command: []string{"node", entry, allowed}}
			session := func(ctx context.Context, c *mcptest.Client) error {
				if _, err := c.CallText(ctx, "list_directory", map[string]any{"path": allowed}); err != nil {
					return err
				}
				_, err := c.CallText(ctx, "read_text_file", map[string]any{"path": filepath.Join(allowed, "README.md")})
				return err
			}
			obs := filepath.Join(dir, "obs", "my-server.json")
			// As record does: the minimum of its runs, merged.
			for range baseline.DefaultRecordRuns.Min {
				r, err := mcptest.Run(context.Background(), server, session, harness.WithBackend(verdict.Backend(backend)),
					harness.WithMode(baseline.ModeRecord), harness.WithBaselines(mine), harness.WithObservationFile(obs), harness.WithTimeout(time.Minute))
				if err != nil || !r.Conclusive() {
					t.Fatalf("record the session: %v %s", err, ci.Summary(r))
				}
			}
			if code, stdout, stderr := run(t, "report", "pr-body", "--write", "--baselines", baselines, obs); code != ExitOK {
				t.Fatalf("report pr-body --write: %d\n%s%s", code, stdout, stderr)
			}
			r, err := mcptest.Run(context.Background(), server, session, harness.WithBackend(verdict.Backend(backend)),
				harness.WithMode(baseline.ModeCheck), harness.WithBaselines(mine), harness.WithTimeout(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != verdict.VerdictClean {
				got, _ := os.ReadFile(mine)
				var report strings.Builder
				_ = ci.WriteText(&report, r, ci.Palette{})
				t.Fatalf("check against the seeded layer and the recorded file: %s\n%s\n%s", r.Verdict, report.String(), got)
			}
		})
	}
}

func TestRecordRuntimeBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte("version: 1\nagent: my-server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "node.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--runtime", "ruby", "-o", out}, "--runtime ruby: want one of node, python"},
		{[]string{"record", "--runtime", "node", "-o", out, "--", "node", "server.js"}, "after -- give only the interpreter"},
		{[]string{"record", "--runtime", "node", "--extends", empty, "-o", out}, "--runtime records a runtime's start alone"},
		// The first baseline docs/mcp.md's reader writes: the error names
		// the file and the command that seeds its runtime.
		{[]string{"check", "-b", empty, "--", "node", "-e", "0"}, empty + ": empty baseline: no syscalls, programs, extends or groups; a first baseline extends its runtime's layer: " +
			"record that on this machine (sysgate record --runtime node -o baselines/runtimes/node.yaml"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: code %d, want %d naming %q\n%s", c.args, code, ExitUsage, c.want, stderr)
		}
	}
}

// Record runs one Agent several times: each run reads the same stdin.
func TestReplayStdinGivesEveryRunTheLine(t *testing.T) {
	in := &replayStdin{line: "{}\n"}
	for run := range 3 {
		got, err := io.ReadAll(in)
		if err != nil || string(got) != "{}\n" {
			t.Fatalf("run %d read %q, %v", run+1, got, err)
		}
	}
}
