package mcp

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/suites/internal/fixture"
)

// These tests drive the real servers pinned in suites/package.json, outside
// the gate. make test installs them first (deps-suites); without them the
// tests skip, and under CI=true fail.

func startServer(t *testing.T, name string, env []string, args ...string) *Process {
	t.Helper()
	argv, err := fixture.NodeServer(name)
	if errors.Is(err, fixture.ErrMissing) {
		testutil.RequireFile(t, filepath.Join(fixture.SuitesDir(), "node_modules"), err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], append(argv[1:], args...)...)
	cmd.Env = append(os.Environ(), env...)
	p, err := Exec(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("close %s: %v", name, err)
		}
	})
	return p
}

func toolNames(tools []Tool) []string {
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestRealFilesystemServer(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startServer(t, fixture.ServerFilesystem, nil, dir)
	ctx := context.Background()

	init, err := p.Initialize(ctx, Implementation{Name: "sysgate-test", Version: "0"})
	if err != nil {
		t.Fatalf("initialize: %v; stderr: %s", err, p.Stderr())
	}
	if init.ServerInfo.Name == "" || init.Capabilities["tools"] == nil {
		t.Fatalf("initialize result %+v: want a server name and the tools capability", init)
	}
	tools, err := p.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"read_text_file", "write_file", "list_directory", "search_files", "move_file"} {
		if !slices.Contains(toolNames(tools), want) {
			t.Errorf("tools/list lacks %s: %v", want, toolNames(tools))
		}
	}

	res, err := p.CallTool(ctx, "read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	if err != nil || res.Text() != "line one\nline two\n" {
		t.Fatalf("read_text_file = %q, %v", textOf(res), err)
	}
	if _, err := p.CallTool(ctx, "write_file", map[string]any{"path": filepath.Join(dir, "out.txt"), "content": "written\n"}); err != nil {
		t.Fatalf("write_file: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(b) != "written\n" {
		t.Fatalf("out.txt on disk = %q, %v", b, err)
	}
	res, err = p.CallTool(ctx, "list_directory", map[string]any{"path": dir})
	if err != nil || !strings.Contains(res.Text(), "[FILE] notes.txt") || !strings.Contains(res.Text(), "[FILE] out.txt") {
		t.Fatalf("list_directory = %q, %v", textOf(res), err)
	}
	res, err = p.CallTool(ctx, "search_files", map[string]any{"path": dir, "pattern": "**/*.txt"})
	if err != nil || !strings.Contains(res.Text(), filepath.Join(dir, "notes.txt")) {
		t.Fatalf("search_files = %q, %v", textOf(res), err)
	}

	// Outside the allowed directory: the tool fails, the protocol does not.
	res, err = p.CallTool(ctx, "read_text_file", map[string]any{"path": "/etc/hostname"})
	var te *ToolError
	if !errors.As(err, &te) || !res.IsError {
		t.Fatalf("read outside the allowed directory = %q, %v; want a ToolError", textOf(res), err)
	}
	if err := p.Err(); err != nil {
		t.Fatalf("connection broke: %v", err)
	}
}

func TestRealMemoryServer(t *testing.T) {
	store := filepath.Join(t.TempDir(), "memory.jsonl")
	p := startServer(t, fixture.ServerMemory, []string{"MEMORY_FILE_PATH=" + store})
	ctx := context.Background()
	if _, err := p.Initialize(ctx, Implementation{Name: "sysgate-test", Version: "0"}); err != nil {
		t.Fatalf("initialize: %v; stderr: %s", err, p.Stderr())
	}
	entities := []map[string]any{{"name": "sysgate", "entityType": "project", "observations": []string{"gates syscalls"}}}
	if _, err := p.CallTool(ctx, "create_entities", map[string]any{"entities": entities}); err != nil {
		t.Fatalf("create_entities: %v", err)
	}
	res, err := p.CallTool(ctx, "read_graph", nil)
	if err != nil || !strings.Contains(res.Text(), "gates syscalls") {
		t.Fatalf("read_graph = %q, %v", textOf(res), err)
	}
	if b, err := os.ReadFile(store); err != nil || !strings.Contains(string(b), `"sysgate"`) {
		t.Fatalf("memory file = %q, %v", b, err)
	}
}

func textOf(r *CallToolResult) string {
	if r == nil {
		return "<nil>"
	}
	return r.Text()
}
