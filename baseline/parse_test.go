package baseline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestFormattedFilesRoundTrip(t *testing.T) {
	for _, path := range []string{"testdata/runtimes/python3.yaml", "testdata/agents/python-readonly.yaml", "testdata/agents/python-programs.yaml"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ParseDocument(path, data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got := doc.Format(); string(got) != string(data) {
			t.Errorf("%s: load -> save changed the file:\n%s", path, got)
		}
	}
}

func TestFormatSortsAndQuotes(t *testing.T) {
	src := `version: 1
agent: a
syscalls:
  x86_64: [write, read, 'close']
  aarch64:
  - openat: "yes"
  - read: 'null'
  - close: "a: b"
`
	doc, err := ParseDocument("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultHeader + `

version: 1
agent: a
syscalls:
  aarch64:
    - close: "a: b"
    - openat: yes
    - read: "null"
  x86_64:
    - close
    - read
    - write
`
	again := formatsAs(t, doc, want)
	if e, _ := again.entry(scmp.AArch64, "read"); e.Reason != "null" {
		t.Errorf("reason %q did not survive as text", e.Reason)
	}
}

// formatsAs checks that doc formats as want, and that want parses and
// formats as itself; it returns want parsed.
func formatsAs(t *testing.T, doc *Document, want string) *Document {
	t.Helper()
	got := string(doc.Format())
	if got != want {
		t.Fatalf("format:\n%s\nwant:\n%s", got, want)
	}
	again, err := ParseDocument(doc.Path, []byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if out := string(again.Format()); out != got {
		t.Errorf("format is not idempotent:\n%s", out)
	}
	return again
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		kind      string
		substr    string
	}{
		{"empty", "", 0, KindEmpty, "empty"},
		{"only comments", "# nothing\n", 0, KindEmpty, "empty"},
		{"no content", "version: 1\n", 0, KindEmpty, "no syscalls"},
		{"unknown key", "version: 1\nsyscall:\n  x86_64: [read]\n", 2, KindSchema, `unknown key "syscall"`},
		{"missing version", "syscalls:\n  x86_64: [read]\n", 1, KindSchema, "missing"},
		{"bad version", "version: 2\nsyscalls:\n  x86_64: [read]\n", 1, KindSchema, "unsupported version 2"},
		{"unknown arch", "version: 1\nsyscalls:\n  amd64:\n    - read\n", 3, KindArch, `unknown architecture "amd64"`},
		{"unknown syscall", "version: 1\nsyscalls:\n  x86_64:\n    - read\n    - opnat\n", 5, KindSyscall, `did you mean "openat"?`},
		{"wrong arch syscall", "version: 1\nsyscalls:\n  aarch64:\n    - open\n", 4, KindSyscall, `unknown syscall "open" on aarch64, did you mean "openat"? (`},
		{"other arch only", "version: 1\nsyscalls:\n  x86_64:\n    - getuid32\n", 4, KindSyscall, `did you mean "getuid"? (known on arm, i386)`},
		{"duplicate", "version: 1\nsyscalls:\n  x86_64:\n    - read\n    - read: again\n", 5, KindDuplicate, "first on line 4"},
		{"duplicate arch", "version: 1\nsyscalls:\n  x86_64: [read]\n  x86_64: [write]\n", 4, KindDuplicate, "listed twice"},
		{"risky without reason", "version: 1\nsyscalls:\n  x86_64:\n    - mount\n", 4, KindRisk, "mount is risky (mount)"},
		{"two entries on a line", "version: 1\nsyscalls:\n  x86_64:\n    - {read: a, write: b}\n", 4, KindSchema, "one syscall per line"},
		{"null reason", "version: 1\nsyscalls:\n  x86_64:\n    - read:\n", 4, KindSchema, "reason of read is empty"},
		{"group without reason", "version: 1\ngroups:\n  err:\n    syscalls:\n      x86_64: [read]\n", 3, KindSchema, "needs a reason"},
		{"not a mapping", "- read\n", 1, KindSchema, "mapping"},
		{"group unknown key", "version: 1\ngroups:\n  g:\n    reason: r\n    why: x\n    syscalls:\n      x86_64: [read]\n", 5, KindSchema, `unknown key "why" in group "g"`},
		{"group bad name", "version: 1\ngroups:\n  g h:\n    reason: r\n    syscalls:\n      x86_64: [read]\n", 3, KindSchema, `group name "g h"`},
		{"group twice", "version: 1\ngroups:\n  g:\n    reason: r\n    syscalls: {x86_64: [read]}\n  g:\n    reason: r\n    syscalls: {x86_64: [write]}\n", 6, KindDuplicate, `group "g" defined twice`},
		{"group not a mapping", "version: 1\ngroups:\n  g: [read]\n", 3, KindSchema, `must have a reason and syscalls`},
		{"group without syscalls", "version: 1\ngroups:\n  g:\n    reason: r\n", 3, KindEmpty, `has no syscalls`},
		{"bad agent", "version: 1\nagent: my agent\nsyscalls: {x86_64: [read]}\n", 2, KindSchema, `agent name "my agent"`},
		{"extends not a list", "version: 1\nextends: base.yaml\n", 2, KindSchema, "extends must be a list"},
		{"key twice", "version: 1\nversion: 1\nsyscalls: {x86_64: [read]}\n", 2, KindDuplicate, `key "version" given twice`},
		{"empty arch list", "version: 1\nsyscalls:\n  x86_64: []\n", 3, KindEmpty, "has no syscalls"},
		{"unmonitored: not a channel", "version: 1\nsyscalls: {x86_64: [read]}\nunmonitored:\n  x86_64:\n    - getppid: r\n", 5, KindChannel, "getppid is not a channel the filter cannot see"},
		{"unmonitored: unknown name", "version: 1\nunmonitored:\n  x86_64:\n    - io_uring_setupp: r\n", 4, KindSyscall, `did you mean "io_uring_setup"?`},
		{"unmonitored: listener", "version: 1\nunmonitored:\n  x86_64:\n    - seccomp: r\n", 4, KindChannel, "cannot be unmonitored"},
		{"unmonitored: no reason", "version: 1\nunmonitored:\n  x86_64:\n    - io_uring_enter\n", 4, KindRisk, "give a reason"},
		{"unmonitored: not a mapping", "version: 1\nunmonitored: [io_uring_setup]\n", 2, KindSchema, "unmonitored must map an architecture"},
		{"list and group", "version: 1\nsyscalls:\n  x86_64: [read]\ngroups:\n  g:\n    reason: r\n    syscalls:\n      x86_64:\n        - read\n", 9, KindDuplicate, "already listed in syscalls (line 3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDocument("f.yaml", []byte(c.src))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			errs := Errors(err)
			for _, e := range errs {
				if e.Kind == c.kind && e.Line == c.line && strings.Contains(e.Message, c.substr) && e.File == "f.yaml" {
					return
				}
			}
			t.Errorf("want line %d [%s] containing %q; got:\n%v", c.line, c.kind, c.substr, err)
		})
	}
}

func TestParseCollectsSeveralErrors(t *testing.T) {
	src := "version: 1\nsyscalls:\n  x86_64:\n    - opnat\n    - reed\n  amd64: [read]\n"
	_, err := ParseDocument("f.yaml", []byte(src))
	errs := Errors(err)
	if len(errs) != 3 {
		t.Fatalf("want 3 errors, got %d:\n%v", len(errs), err)
	}
	want := "f.yaml:4: unknown syscall \"opnat\" on x86_64, did you mean \"openat\"? [syscall]"
	if errs[0].Error() != want {
		t.Errorf("first error prints\n%s\nwant\n%s", errs[0], want)
	}
	if errs[0].Line > errs[1].Line || errs[1].Line > errs[2].Line {
		t.Errorf("errors not sorted by line: %v", err)
	}
}

func TestUnreviewedReasonIsAWarning(t *testing.T) {
	path := writeFile(t, t.TempDir(), "a.yaml", "version: 1\nsyscalls:\n  x86_64:\n    - mount: "+yamlString(UnreviewedReason)+"\n    - read\n")
	p, err := Load(path)
	if err != nil {
		t.Fatalf("placeholder reason must load: %v", err)
	}
	w := p.Warnings()
	if len(w) != 1 || w[0].Kind != KindUnreviewed || w[0].Line != 4 || !w[0].Warning {
		t.Fatalf("warnings = %v", w)
	}
	if !strings.Contains(w[0].Error(), ":4: warning: ") {
		t.Errorf("warning prints as %q", w[0])
	}
}

func TestCommentsKeptOrWarned(t *testing.T) {
	src := "# my header\n\nversion: 1 # one\nsyscalls: # list\n  # arch comment\n  x86_64:\n    # why read\n    - read # inline\n    - write\n"
	doc, errs := parseDocument("f.yaml", []byte(src))
	if doc == nil || hasErrors(errs) {
		t.Fatalf("parse: %v", errs)
	}
	var lines []int
	for _, e := range errs {
		if e.Kind != KindFormat || !e.Warning {
			t.Errorf("unexpected finding %v", e)
		}
		lines = append(lines, e.Line)
	}
	if !reflect.DeepEqual(lines, []int{3, 4, 6}) {
		t.Errorf("want format warnings on lines 3, 4 and 6, got %v", errs)
	}
	got := string(doc.Format())
	for _, keep := range []string{"# my header\n", "    # why read\n    - read # inline\n"} {
		if !strings.Contains(got, keep) {
			t.Errorf("formatted file lost %q:\n%s", keep, got)
		}
	}
}

func TestLoadStackExtends(t *testing.T) {
	p, err := Load("testdata/agents/python-readonly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, ok := p.Lookup(scmp.X86_64, "read")
	if !ok || e.File != filepath.Clean("testdata/runtimes/python3.yaml") || e.Line != 23 {
		t.Errorf("read from base: %+v %v", e, ok)
	}
	e, ok = p.Lookup(scmp.X86_64, "connect")
	if !ok || e.Reason != "talks to the loopback HTTP server of the spec" || e.File != "testdata/agents/python-readonly.yaml" {
		t.Errorf("connect: %+v", e)
	}
	if e, ok := p.Lookup(scmp.X86_64, "rt_sigreturn"); !ok || e.Group != "error-paths" {
		t.Errorf("group entry: %+v", e)
	}
	if p.Allows(scmp.AArch64, "read") || !p.Allows(scmp.AArch64, "openat") {
		t.Errorf("sections leak across arches")
	}
	if got := p.GomegaString(); got != "baseline testdata/agents/python-readonly.yaml (+1 extended): aarch64 1, x86_64 32" {
		t.Errorf("profile prints as %q", got)
	}
	if p.Agent() != "python-readonly" {
		t.Errorf("agent %q", p.Agent())
	}
	if got := p.Arches(); len(got) != 2 || got[0] != scmp.AArch64 || got[1] != scmp.X86_64 {
		t.Errorf("arches %v", got)
	}
}

func TestLoadStackErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nsyscalls:\n  x86_64:\n    - read\n")
	writeFile(t, dir, "dup.yaml", "version: 1\nextends: [base.yaml]\nsyscalls:\n  x86_64:\n    - read\n    - write\n")
	writeFile(t, dir, "a.yaml", "version: 1\nextends:\n  - b.yaml\nsyscalls:\n  x86_64: [read]\n")
	writeFile(t, dir, "b.yaml", "version: 1\nextends:\n  - sub/c.yaml\n")
	writeFile(t, dir, "sub/c.yaml", "version: 1\nextends:\n  - ../a.yaml\n")
	writeFile(t, dir, "missing.yaml", "version: 1\nextends:\n  - nope.yaml\n")
	writeFile(t, dir, "other.yaml", "version: 1\nsyscalls:\n  x86_64:\n    - read\n")
	cases := []struct {
		file, kind, substr string
		line               int
	}{
		{"dup.yaml", KindDuplicate, "read on x86_64 is already allowed by " + filepath.Join(dir, "base.yaml") + ":4", 5},
		{"a.yaml", KindExtends, "extends cycle: " + filepath.Join(dir, "a.yaml") + " -> " + filepath.Join(dir, "b.yaml") + " -> " + filepath.Join(dir, "sub/c.yaml") + " -> " + filepath.Join(dir, "a.yaml"), 3},
		{"missing.yaml", KindExtends, "extends nope.yaml: cannot read", 3},
	}
	for _, c := range cases {
		_, err := Load(filepath.Join(dir, c.file))
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s: err = %v", c.file, err)
		}
		found := false
		for _, e := range Errors(err) {
			found = found || (e.Kind == c.kind && e.Line == c.line && strings.Contains(e.Message, c.substr))
		}
		if !found {
			t.Errorf("%s: want line %d [%s] %q, got:\n%v", c.file, c.line, c.kind, c.substr, err)
		}
	}
	// Two unrelated files may overlap; the first one wins.
	p, err := LoadStack(filepath.Join(dir, "base.yaml"), filepath.Join(dir, "other.yaml"))
	if err != nil {
		t.Fatalf("overlapping independent files: %v", err)
	}
	if e, _ := p.Lookup(scmp.X86_64, "read"); e.File != filepath.Join(dir, "base.yaml") {
		t.Errorf("first file should win: %+v", e)
	}
	// The same file named relative and absolute is one file.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, filepath.Join(dir, "base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadStack(rel, filepath.Join(dir, "dup.yaml")); !errors.Is(err, ErrInvalid) {
		t.Errorf("dup.yaml's duplicate of base.yaml must still be found: %v", err)
	}
	if p, err := LoadStack(rel, filepath.Join(dir, "base.yaml")); err != nil || len(p.Docs) != 1 {
		t.Errorf("one file named twice: %v, %+v", err, p)
	}
	if _, err := Load(filepath.Join(dir, "absent.yaml")); err == nil || errors.Is(err, ErrInvalid) {
		t.Errorf("missing top file: %v (want an I/O error, not ErrInvalid)", err)
	}
}

func TestErrorValues(t *testing.T) {
	_, err := ParseDocument("f.yaml", []byte("version: 1\nsyscalls:\n  x86_64: [reed, opnat]\n"))
	want := "f.yaml:3: unknown syscall \"reed\" on x86_64, did you mean \"read\"? [syscall]\n" +
		"f.yaml:3: unknown syscall \"opnat\" on x86_64, did you mean \"openat\"? [syscall]"
	if err == nil || err.Error() != want {
		t.Errorf("list prints\n%v\nwant\n%s", err, want)
	}
	var one *Error
	if !errors.As(err, &one) || one.Col != 12 {
		t.Errorf("errors.As through the list: %#v", one)
	}
	wrapped := fmt.Errorf("load: %w", one)
	if !errors.Is(wrapped, ErrInvalid) || errors.Is(wrapped, ErrAgentMismatch) {
		t.Errorf("a single Error must match ErrInvalid only")
	}
	if got := (&Error{File: "f.yaml", Message: "empty", Kind: KindEmpty}).Error(); got != "f.yaml: empty [empty]" {
		t.Errorf("line-less error prints %q", got)
	}
	if Errors(errors.New("other")) != nil {
		t.Errorf("Errors of a foreign error")
	}
}

func TestUnmonitoredRoundTripsAndListedChannelsWarn(t *testing.T) {
	src := `version: 1
syscalls:
  x86_64:
    - io_uring_setup: listed
    - read
unmonitored:
  x86_64:
    - io_uring_setup: "the runtime reads files through a ring"
`
	doc, err := ParseDocument("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Warnings) != 1 || doc.Warnings[0].Kind != KindChannel || doc.Warnings[0].Line != 4 {
		t.Errorf("want one channel warning on line 4, got %v", doc.Warnings)
	}
	want := DefaultHeader + "\n\n" + strings.Replace(src, `"the runtime reads files through a ring"`, "the runtime reads files through a ring", 1)
	if got := string(doc.Format()); got != want {
		t.Errorf("format:\n%s\nwant:\n%s", got, want)
	}
}
