package baseline

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/files from the output")

// readObserved reads a fixture of "ACCESS COUNT PATH" lines, made from
// `strace -f -e trace=%file,%process` of a real run (testdata/files/README).
func readObserved(t *testing.T, name string) []ObservedFile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "files", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ObservedFile
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), " ", 3)
		op, ok := ParseFileOp(fields[0])
		n, err := strconv.ParseUint(fields[1], 10, 64)
		if len(fields) != 3 || !ok || err != nil {
			t.Fatalf("%s: bad line %q", name, sc.Text())
		}
		out = append(out, ObservedFile{Path: fields[2], Op: op, Count: n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func formatEntries(entries []FileEntry) string {
	doc := &Document{Version: FormatVersion, Files: entries, HasFiles: true}
	return string(doc.Format())
}

// TestGeneraliseRealRuns: the targets, on paths two real runs
// touched: the Python agent suite's "write" scenario (210 paths) under 25
// lines, the MCP filesystem server (268 paths) under 20. Every observed
// access must stay allowed, and the result must be a valid section.
func TestGeneraliseRealRuns(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		ctx     FileContext
		max     int
	}{
		// A pyenv interpreter: its version's prefix, and PYENV_ROOT, whose
		// shim and scripts run before it.
		{"py.observed", FileContext{Workspace: "/home/runner/work/_temp/ws-4711", Home: "/home/runner", Tmp: "/tmp",
			Runtime: []string{"/home/runner/.pyenv/versions/3.11.7", "/home/runner/.pyenv"}}, 25},
		// The server's runtime: node's own files and the package tree it
		// runs from.
		{"mcp.observed", FileContext{Workspace: "/home/runner/work/_temp/ws-4711", Home: "/home/runner", Tmp: "/tmp",
			Runtime: []string{"/home/runner/work/sysgate/sysgate/suites/node_modules"}}, 20},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			seen := readObserved(t, tc.fixture)
			entries := GeneraliseFiles(tc.ctx, seen)
			out := formatEntries(entries)
			lines := len(entries)
			t.Logf("%d paths -> %d entries:\n%s", len(seen), lines, out)
			if lines >= tc.max {
				t.Errorf("%d entries, want under %d", lines, tc.max)
			}
			golden := filepath.Join("testdata", "files", strings.TrimSuffix(tc.fixture, ".observed")+".golden.yaml")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want, err := os.ReadFile(golden); err != nil || string(want) != out {
				t.Errorf("%s differs from the output (rerun with -update after review): %v", golden, err)
			}
			doc, err := ParseDocument("f.yaml", []byte(out))
			if err != nil {
				t.Fatalf("generated section does not validate: %v", err)
			}
			m := newFileMatcher(doc.Files, tc.ctx)
			for _, s := range seen {
				if !m.Allows(s.Path, s.Op) {
					t.Errorf("%s %s not allowed by the generated section", s.Op, s.Path)
				}
			}
			for _, e := range entries {
				if e.Pattern == "/**" || e.Pattern == "{home}/**" || e.Pattern == "{home}/*" {
					t.Errorf("widened to %s", e)
				}
			}
		})
	}
}

func TestGeneraliseFiles(t *testing.T) {
	ctx := FileContext{Workspace: "/w", Home: "/home/u", Tmp: "/tmp", Runtime: []string{"/rt"}, PIDs: []int{41, 42}}
	seen := []ObservedFile{
		{Path: "/w/a", Op: FileRead}, {Path: "/w/b/c", Op: FileRead},
		{Path: "/w/out/r.md", Op: FileWrite},
		{Path: "/tmp/tmpab12cd/x", Op: FileWrite}, {Path: "/tmp/tmpab12cd/x", Op: FileDelete},
		{Path: "/rt/lib/os.py", Op: FileRead},
		{Path: "/proc/41/status", Op: FileRead}, {Path: "/proc/42/status", Op: FileRead}, {Path: "/proc/1/cmdline", Op: FileRead},
		{Path: "/home/u/.ssh/id_rsa", Op: FileRead},
		{Path: "/home/u/.gitconfig", Op: FileRead},
		{Path: "/home/u/.netrc", Op: FileRead}, {Path: "/home/u/.npmrc", Op: FileRead}, {Path: "/home/u/.profile", Op: FileRead}, {Path: "/home/u/.bashrc", Op: FileRead},
		{Path: "/etc/passwd", Op: FileRead}, {Path: "/etc/group", Op: FileRead}, {Path: "/etc/hosts", Op: FileRead}, {Path: "/etc/shadow", Op: FileRead},
		{Path: "/usr/lib/x86_64-linux-gnu/liba.so", Op: FileRead}, {Path: "/usr/lib/x86_64-linux-gnu/libb.so", Op: FileRead},
		{Path: "/usr/lib/x86_64-linux-gnu/libc.so", Op: FileRead}, {Path: "/usr/lib/x86_64-linux-gnu/libd.so", Op: FileRead},
		{Path: "/usr/share/zoneinfo/a/b", Op: FileRead}, {Path: "/usr/share/zoneinfo/c", Op: FileRead}, {Path: "/usr/share/zoneinfo/d", Op: FileRead}, {Path: "/usr/share/zoneinfo/e/f", Op: FileRead},
		{Path: "/opt/x/we*rd", Op: FileExec},
		{Path: "relative", Op: FileRead},
	}
	got := formatEntries(GeneraliseFiles(ctx, seen))
	want := `# sysgate baseline: reviewed in pull requests. Regenerate with ` + "`sysgate record --merge`" + `.

version: 1
files:
  read:
    - /etc/group
    - /etc/hosts
    - /etc/passwd
    - path: /etc/shadow
      reason: "unreviewed: seen in record mode"
    - /proc/1/cmdline
    - /proc/self/status
    - /usr/lib/x86_64-linux-gnu/*
    - /usr/share/zoneinfo/**
    - "{home}/.bashrc"
    - "{home}/.gitconfig"
    - path: "{home}/.netrc"
      reason: "unreviewed: seen in record mode"
    - path: "{home}/.npmrc"
      reason: "unreviewed: seen in record mode"
    - "{home}/.profile"
    - path: "{home}/.ssh/id_rsa"
      reason: "unreviewed: seen in record mode"
    - "{runtime}/**"
    - "{workspace}/**"
  write:
    - "{tmp}/**"
    - "{workspace}/**"
  exec:
    - /opt/x/we?rd
  delete:
    - "{tmp}/**"
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
