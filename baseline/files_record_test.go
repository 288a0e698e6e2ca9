package baseline

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"slices"
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
		{Path: "/tmp/tmpab12cd_x", Op: FileWrite}, {Path: "/tmp/tmpab12cd_x/x", Op: FileWrite}, {Path: "/tmp/tmpab12cd_x/x", Op: FileDelete},
		{Path: "/tmp/shared/key", Op: FileRead},
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
    - "{tmp}/shared/key"
    - "{workspace}/**"
  write:
    - "{tmp}/tmp????????/**"
    - "{workspace}/**"
  exec:
    - /opt/x/we?rd
  delete:
    - "{tmp}/tmp????????/**"
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestGeneraliseTmp: record generalises under {tmp} only what the run
// made there (issue 43, item 9): a name it wrote, with its random part
// masked; a file another process left stays literal, and {tmp}/** is
// never written.
func TestGeneraliseTmp(t *testing.T) {
	ctx := FileContext{Workspace: "/w", Home: "/home/u", Tmp: "/tmp"}
	for _, tc := range []struct {
		name string
		seen []ObservedFile
		want []string // "op pattern"
	}{
		{"python mkdtemp", []ObservedFile{{Path: "/tmp/tmpk3j_9x2a", Op: FileWrite}, {Path: "/tmp/tmpk3j_9x2a/in.txt", Op: FileWrite}, {Path: "/tmp/tmpk3j_9x2a/in.txt", Op: FileRead}},
			[]string{"read {tmp}/tmp????????/**", "write {tmp}/tmp????????/**"}},
		{"python mkstemp with a suffix", []ObservedFile{{Path: "/tmp/tmpk3j_9x2a.json", Op: FileWrite}, {Path: "/tmp/tmpk3j_9x2a.json", Op: FileRead}},
			[]string{"read {tmp}/tmp????????.json", "write {tmp}/tmp????????.json"}},
		{"mkdtemp(3) and node's fs.mkdtemp", []ObservedFile{{Path: "/tmp/filetouch.Ab3xYz", Op: FileWrite}, {Path: "/tmp/filetouch.Ab3xYz/own", Op: FileRead}, {Path: "/tmp/agent-q1W2e3", Op: FileWrite}},
			[]string{"read {tmp}/filetouch.??????/**", "write {tmp}/agent-??????", "write {tmp}/filetouch.??????"}},
		{"mktemp(1)", []ObservedFile{{Path: "/tmp/tmp.AbCdE12345", Op: FileWrite}, {Path: "/tmp/tmp.AbCdE12345/f", Op: FileExec}},
			[]string{"exec {tmp}/tmp.??????????/**", "write {tmp}/tmp.??????????"}},
		{"Go's os.MkdirTemp", []ObservedFile{{Path: "/tmp/build3456789012", Op: FileWrite}, {Path: "/tmp/build3456789012/a.out", Op: FileWrite}},
			[]string{"write {tmp}/build*/**"}},
		{"gcc's files", []ObservedFile{{Path: "/tmp/ccId21Co.s", Op: FileWrite}, {Path: "/tmp/ccId21Co.s", Op: FileRead}, {Path: "/tmp/ccNvkZoA.cdtor.c", Op: FileWrite}},
			[]string{"read {tmp}/cc??????.s", "write {tmp}/cc??????.cdtor.c", "write {tmp}/cc??????.s"}},
		{"a name of its own", []ObservedFile{{Path: "/tmp/cache", Op: FileWrite}, {Path: "/tmp/cache/a", Op: FileRead}},
			[]string{"read {tmp}/cache/**", "write {tmp}/cache"}},
		// The drill: one read of a file in a directory the run did not
		// make; four are still four lines, not {tmp}/shared/*.
		{"not the run's", []ObservedFile{{Path: "/tmp/shared/a", Op: FileRead}, {Path: "/tmp/shared/b", Op: FileRead}, {Path: "/tmp/shared/c", Op: FileRead}, {Path: "/tmp/shared/d", Op: FileRead}, {Path: "/tmp/x", Op: FileExec}},
			[]string{"read {tmp}/shared/a", "read {tmp}/shared/b", "read {tmp}/shared/c", "read {tmp}/shared/d", "exec {tmp}/x"}},
		{"written inside, not made", []ObservedFile{{Path: "/tmp/tmpk3j_9x2a/out", Op: FileWrite}},
			[]string{"write {tmp}/tmpk3j_9x2a/out"}},
		{"a glob character in a name", []ObservedFile{{Path: "/tmp/we*rd-Ab3xYz", Op: FileWrite}},
			[]string{"write {tmp}/we?rd-??????"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range GeneraliseFiles(ctx, tc.seen) {
				got = append(got, e.Op.String()+" "+e.Pattern)
			}
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			m := newFileMatcher(GeneraliseFiles(ctx, tc.seen), ctx)
			for _, s := range tc.seen {
				if !m.Allows(s.Path, s.Op) {
					t.Errorf("%s %s is not allowed by what record wrote", s.Op, s.Path)
				}
			}
			if m.Allows("/tmp/other/id_rsa", FileRead) || m.Allows("/tmp/plant-123456/key", FileRead) {
				t.Errorf("what record wrote reaches another directory in /tmp: %q", got)
			}
		})
	}
}

// A hint's entry is what record would write: a placeholder's tree, a
// random suffix masked, a sensitive path literal with a reason.
func TestFixEntry(t *testing.T) {
	ctx := FileContext{Workspace: "/home/runner/work/x", Home: "/home/runner", Tmp: "/tmp"}
	for _, c := range []struct {
		path string
		op   FileOp
		want string
	}{
		{"/home/runner/work/x/__pycache__/agentlib.cpython-311.pyc.140284729020512", FileWrite, "{workspace}/**"},
		{"/home/runner/.cache/pip/http/x.pyc.140284729020512", FileWrite, "{home}/.cache/pip/http/x.pyc.*"},
		{"/var/cache/app/state.json.4031992", FileDelete, "/var/cache/app/state.json.*"},
		{"/etc/hostname", FileRead, "/etc/hostname"},
		{"/home/runner/.ssh/id_rsa", FileRead, "{home}/.ssh/id_rsa"},
		{"/proc/123456", FileRead, "/proc/123456"},
	} {
		if got := FixEntry(ctx, c.path, c.op); got.Pattern != c.want {
			t.Errorf("FixEntry(%s, %s) = %q, want %q", c.path, c.op, got.Pattern, c.want)
		}
	}
	if e := FixEntry(ctx, "/home/runner/.ssh/id_rsa", FileRead); e.Reason != UnreviewedReason {
		t.Errorf("a sensitive path's entry has reason %q", e.Reason)
	}
}
