package baseline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGlobProblem(t *testing.T) {
	for _, tc := range []struct{ glob, want string }{
		{"/etc/ld.so.cache", ""},
		{"/", ""},
		{"{workspace}", ""},
		{"{workspace}/**", ""},
		{"{runtime}/lib/*.so", ""},
		{"/proc/*/st?t", ""},
		{"relative/x", "relative path"},
		{"**/.env", "relative path"},
		{"/a/../b", `".."`},
		{"/a/./b", `"."`},
		{"/a//b", "empty path element"},
		{"/a/", "empty path element"},
		{"/a/b**", `element "b**"`},
		{"/a/***/b", `element "***"`},
		{"{workspce}/x", "did you mean {workspace}?"},
		{"{hom}", "did you mean {home}?"},
		{"{workspace", "unclosed placeholder"},
		{"{tmp}x", "a placeholder is a whole directory"},
		{"/x/{home}/y", "a placeholder may only start an entry"},
		{"/a\nb", "control characters"},
	} {
		got := globProblem(tc.glob)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("globProblem(%q) = %q, want %q", tc.glob, got, tc.want)
		}
	}
}

// TestFilesExampleIsCanonical: the example file parses, and formatting
// it gives the same bytes (the file is its own golden).
func TestFilesExampleIsCanonical(t *testing.T) {
	path := filepath.Join("testdata", "files", "agent.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ParseDocument(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Files) != 9 || !doc.HasFiles {
		t.Fatalf("files: %+v", doc.Files)
	}
	if out := doc.Format(); !bytes.Equal(out, data) {
		t.Errorf("format differs:\n%s", out)
	}
}

func TestParseFilesErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"relative", "files:\n  read:\n    - x/y\n", "f.yaml:4: x/y: relative path"},
		{"dotdot", "files:\n  read:\n    - /a/../etc/shadow\n", `f.yaml:4: /a/../etc/shadow: ".."`},
		{"bad glob", "files:\n  write:\n    - /a/b**\n", `element "b**"`},
		{"placeholder", "files:\n  read:\n    - \"{workspce}/**\"\n", "unknown placeholder {workspce}"},
		{"access", "files:\n  raed:\n    - /a\n", `unknown access "raed" in files (known: read, write, exec, delete), did you mean "read"?`},
		{"twice", "files:\n  read:\n    - /a\n    - /a\n", "/a: read listed twice (first on line 4) [duplicate]"},
		{"not a map", "files: [/a]\n", "files must map an access"},
		{"key", "files:\n  read:\n    - {path: /a, why: x}\n", `unknown key "why" in a files entry`},
		{"no path", "files:\n  read:\n    - {reason: x}\n", "files entry without a path"},
		{"sensitive", "files:\n  read:\n    - \"{home}/.ssh/id_rsa\"\n", "f.yaml:4: {home}/.ssh/id_rsa: read names a sensitive path (ssh key, high); give a reason"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDocument("f.yaml", []byte("version: 1\n"+tc.body))
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

func TestParseFilesAccepts(t *testing.T) {
	for _, body := range []string{
		"files: {}\n",
		"files:\n  read: []\n",
		"files:\n  read:\n    - path: \"{home}/.ssh/id_rsa\"\n      reason: deploys over ssh\n",
		"files:\n  read:\n    - \"{tmp}/**\"\n    - \"{runtime}/**\"\n    - /proc/self/environ\n",
		"files:\n  read:\n    - \"{repo}/src/*.go\"\n",
	} {
		doc, err := ParseDocument("f.yaml", []byte("version: 1\n"+body))
		if err != nil || !doc.HasFiles {
			t.Errorf("%q: %v", body, err)
		}
	}
}

func TestUnreviewedFileReasonWarns(t *testing.T) {
	doc, err := ParseDocument("f.yaml", []byte("version: 1\nfiles:\n  read:\n    - path: \"{home}/.ssh/id_rsa\"\n      reason: \"unreviewed: seen in record mode\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Warnings) != 1 || doc.Warnings[0].Kind != KindUnreviewed || !strings.Contains(doc.Warnings[0].Message, "ssh key") {
		t.Errorf("warnings: %v", doc.Warnings)
	}
}

// A glob that only covers a sensitive path is an advisory note, not an
// error: the gate lets it reach the path only with a reviewed reason.
func TestFilesGlobCoveringSensitiveIsAdvisory(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"covers", "files:\n  read:\n    - \"{home}/**\"\n", "{home}/**: read covers sensitive paths: /**/.env (env file, high), /**/.ssh/** (ssh key, high), /**/*.key (private key, high) and 10 more"},
		{"covers hooks", "files:\n  write:\n    - \"{workspace}/**\"\n", "{workspace}/**: write covers sensitive paths: /**/.ssh/** (ssh key, high), /**/*.key (private key, high), /**/.gnupg/** (gpg key, high) and "},
		{"glob names", "files:\n  write:\n    - /etc/cron.d/*\n", "/etc/cron.d/*: write covers sensitive paths: /etc/cron.*/** (cron, high)"},
		{"unreviewed", "files:\n  read:\n    - path: \"{workspace}/**\"\n      reason: \"unreviewed: seen in record mode\"\n", "/**/.env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := ParseDocument("f.yaml", []byte("version: 1\n"+tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Warnings) != 1 || doc.Warnings[0].Kind != KindSensitive || !doc.Warnings[0].Advisory || !strings.Contains(doc.Warnings[0].Message, tc.want) {
				t.Errorf("warnings %v, want one advisory [sensitive] with %q", doc.Warnings, tc.want)
			}
		})
	}
	// With a person's reason, nothing to say.
	doc, err := ParseDocument("f.yaml", []byte("version: 1\nfiles:\n  read:\n    - path: \"{home}/**\"\n      reason: the agent indexes the home\n"))
	if err != nil || len(doc.Warnings) != 0 {
		t.Errorf("reasoned glob: %v %v", err, doc.Warnings)
	}
}

func loadFilesSection(t *testing.T, body string) *Profile {
	t.Helper()
	dir := t.TempDir()
	path := writeFile(t, dir, "a.yaml", "version: 1\n"+body)
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFileMatcher(t *testing.T) {
	p := loadFilesSection(t, `files:
  read:
    - /etc/ld.so.cache
    - "{runtime}/**"
    - path: "{workspace}/**"
      reason: reads the checkout
    - /proc/*/stat
    - /usr/lib/x86_64-linux-gnu/lib?.so.*
  write:
    - "{tmp}/**"
    - "{workspace}/out/*"
  exec:
    - /usr/bin/git
`)
	ctx := FileContext{Workspace: "/w/repo", Home: "/home/u", Tmp: "/tmp", Runtime: []string{"/usr/lib/python3.11", "/opt/venv/"}}
	m := p.FileMatcher(ctx)
	for _, tc := range []struct {
		path string
		op   FileOp
		want bool
	}{
		{"/etc/ld.so.cache", FileRead, true},
		{"/etc/ld.so.cache", FileWrite, false},
		{"/etc/ld.so.cache/", FileRead, true},
		{"/etc/passwd", FileRead, false},
		{"/usr/lib/python3.11", FileRead, true},
		{"/usr/lib/python3.11/os.py", FileRead, true},
		{"/usr/lib/python3.11/a/b/c.py", FileRead, true},
		{"/usr/lib/python3.110/os.py", FileRead, false},
		{"/opt/venv/lib/site.py", FileRead, true},
		{"/w/repo/README.md", FileRead, true},
		{"/w/repo/../secret", FileRead, false},
		{"/w/repo/out/x", FileWrite, true},
		{"/w/repo/out/x/y", FileWrite, false},
		{"/w/repo/x", FileWrite, false},
		{"/tmp/tmpab12cd/x", FileWrite, true},
		{"/proc/41/stat", FileRead, true},
		{"/proc/41/task/1/stat", FileRead, false},
		{"/usr/lib/x86_64-linux-gnu/libz.so.1", FileRead, true},
		{"/usr/lib/x86_64-linux-gnu/libzz.so.1", FileRead, false},
		{"/usr/bin/git", FileExec, true},
		{"usr/bin/git", FileExec, false},
		{"/usr/bin/git", FileDelete, false},
	} {
		if got := m.Allows(tc.path, tc.op); got != tc.want {
			t.Errorf("Allows(%q, %s) = %v, want %v", tc.path, tc.op, got, tc.want)
		}
		if got := p.FileAllows(ctx, tc.path, tc.op); got != tc.want {
			t.Errorf("FileAllows(%q, %s) = %v, want %v", tc.path, tc.op, got, tc.want)
		}
	}
	// An empty placeholder value matches nothing, not "/".
	if p.FileAllows(FileContext{}, "/tmp/x", FileWrite) || p.FileAllows(FileContext{}, "/x", FileRead) {
		t.Error("an empty placeholder matched")
	}
	if got := m.Explain("/w/repo/x", FileWrite); got != "not in the baseline; it has {workspace}/**: read" {
		t.Errorf("Explain: %q", got)
	}
	if got := m.Explain("/usr/bin/gitx", FileExec); got != "not in the baseline; it has /usr/bin/git: exec" {
		t.Errorf("Explain: %q", got)
	}
	if !p.FilesGated() || p.FileBlindWarning() != nil {
		t.Error("a stack with a files section is gated")
	}
}

func TestFilesEmptySectionGates(t *testing.T) {
	p := loadFilesSection(t, "files: {}\n")
	if !p.FilesGated() || p.FileAllows(FileContext{Workspace: "/w"}, "/w/x", FileRead) {
		t.Error("files: {} must gate and allow nothing")
	}
	if got := p.FileMatcher(FileContext{}).Explain("/x", FileRead); got != "not in the baseline; its files section is empty" {
		t.Errorf("Explain: %q", got)
	}
	blind := loadFilesSection(t, "syscalls:\n  x86_64: [read]\n")
	w := blind.FileBlindWarning()
	if blind.FilesGated() || w == nil || w.Kind != KindFileBlind || !w.Warning {
		t.Errorf("file-blind: %v", w)
	}
}

// TestFilesLayersUnion: extends layers union their files sections, and a
// base's section gates the stack.
func TestFilesLayersUnion(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nfiles:\n  read:\n    - \"{runtime}/**\"\n")
	writeFile(t, dir, "agent.yaml", "version: 1\nextends: [base.yaml]\nfiles:\n  write:\n    - \"{tmp}/**\"\n")
	writeFile(t, dir, "plain.yaml", "version: 1\nextends: [base.yaml]\nsyscalls:\n  x86_64: [read]\n")
	p, err := Load(filepath.Join(dir, "agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := FileContext{Tmp: "/tmp", Runtime: []string{"/rt"}}
	if !p.FileAllows(ctx, "/rt/x", FileRead) || !p.FileAllows(ctx, "/tmp/y", FileWrite) || p.FileAllows(ctx, "/tmp/y", FileRead) {
		t.Errorf("union: %v", p.FileEntries())
	}
	plain, err := Load(filepath.Join(dir, "plain.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !plain.FilesGated() {
		t.Error("a base's files section gates the stack")
	}
}

func TestRepoPlaceholder(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "b/a.yaml", "version: 1\nfiles:\n  read:\n    - \"{repo}/src/**\"\n")
	p, err := Load(filepath.Join(dir, "b", "a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if !p.FileAllows(FileContext{}, real+"/src/x.go", FileRead) || p.FileAllows(FileContext{}, real+"/b/a.yaml", FileRead) {
		t.Errorf("{repo} = %s: %+v", real, p.FileEntries())
	}
}

func TestAbstract(t *testing.T) {
	ctx := FileContext{Workspace: "/home/runner/work/r/r", Home: "/home/runner", Tmp: "/tmp", Runtime: []string{"/usr/lib/python3.11"}}
	for in, want := range map[string]string{
		"/home/runner/work/r/r/out.txt": "{workspace}/out.txt",
		"/home/runner/work/r/r":         "{workspace}",
		"/home/runner/.ssh/id_rsa":      "{home}/.ssh/id_rsa",
		"/home/runnerx":                 "/home/runnerx",
		"/tmp/a/../b":                   "{tmp}/b",
		"/usr/lib/python3.11/os.py":     "{runtime}/os.py",
		"{tmp}/x":                       "{tmp}/x",
	} {
		if got := ctx.Abstract(in); got != want {
			t.Errorf("Abstract(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkFileMatcher: a Python run makes about a thousand checks; the
// matcher is built once per run.
func BenchmarkFileMatcher(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "files", "agent.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := FileContext{Workspace: "/home/runner/work/r/r", Home: "/home/runner", Tmp: "/tmp", Runtime: []string{"/usr/lib/python3.11"}}
	paths := []string{"/usr/lib/python3.11/encodings/utf_8.py", "/home/runner/work/r/r/src/app.py", "/etc/ld.so.cache", "/home/runner/.ssh/id_rsa", "/usr/lib/x86_64-linux-gnu/libz.so.1"}
	b.Run("compiled", func(b *testing.B) {
		m := p.FileMatcher(ctx)
		for i := 0; i < b.N; i++ {
			m.Allows(paths[i%len(paths)], FileRead)
		}
	})
	b.Run("FileAllows", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p.FileAllows(ctx, paths[i%len(paths)], FileRead)
		}
	})
}

func TestMatchElem(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		want   bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abbc", true}, {"a*c", "abcd", false},
		{"*a", "*xa", true}, {"?", "", false}, {"?b", "ab", true}, {"lib*.so.*", "libz.so.1", true},
		{"*.py", "a.py.txt", false}, {"**", "x", true}, {"a", "A", false}, {"?", "é", true}, {"a?c", "a日c", true}, {"*é", "xxé", true},
	} {
		if got := matchElem(tc.pat, tc.s); got != tc.want {
			t.Errorf("matchElem(%q, %q) = %v", tc.pat, tc.s, got)
		}
	}
	// Many "**" against a long path an agent chose: linear walk, not an
	// exponential search (this would not finish otherwise).
	g := compileGlob("/" + strings.Repeat("**/", 30) + "x")
	long := splitPath("/" + strings.Repeat("a/", 5000) + "y")
	if g.match(long) || !g.match(splitPath("/a/b/x")) {
		t.Error("many ** matched wrongly")
	}
}

func TestFilesDuplicateAcrossLayers(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nfiles:\n  read:\n    - \"{runtime}/**\"\n")
	path := writeFile(t, dir, "a.yaml", "version: 1\nextends: [base.yaml]\nfiles:\n  read:\n    - \"{runtime}/**\"\n  write:\n    - \"{runtime}/**\"\n")
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "a.yaml:5: {runtime}/**: read is already allowed by "+filepath.Join(dir, "base.yaml")+":4 [duplicate]") {
		t.Errorf("got %v", err)
	}
}

func TestExpandedFiles(t *testing.T) {
	p := loadFilesSection(t, "files:\n  read:\n    - \"{runtime}/**\"\n    - \"{home}/.gitconfig\"\n    - /etc/hosts\n")
	var got []string
	for _, e := range p.ExpandedFiles(FileContext{Runtime: []string{"/a", "/b/"}}) {
		got = append(got, e.String())
	}
	if strings.Join(got, ", ") != "/etc/hosts: read, /a/**: read, /b/**: read" {
		t.Errorf("got %s", strings.Join(got, ", "))
	}
}
