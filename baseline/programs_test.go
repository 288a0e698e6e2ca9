package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestProgramsParseErrors(t *testing.T) {
	const head = "version: 1\nprograms:\n"
	cases := []struct {
		name, src string
		line, col int
		kind      string
		substr    string
	}{
		{"not a list", "version: 1\nprograms: /usr/bin/git\n", 2, 11, KindSchema, "programs must be a list"},
		{"null section", "version: 1\nprograms:\nsyscalls: {x86_64: [read]}\n", 2, 10, KindSchema, `"programs: []" for none`},
		{"empty path", head + "  - \"\"\n", 3, 5, KindSchema, "program path is empty"},
		{"null path", head + "  - path:\n    reason: r\n", 3, 10, KindSchema, "program path is empty"},
		{"empty reason", head + "  - path: /usr/bin/git\n    reason:\n", 4, 12, KindSchema, "program reason is empty"},
		{"twice", head + "  - /usr/bin/git\n  - /usr/bin/git\n", 4, 5, KindDuplicate, "program /usr/bin/git listed twice (first on line 3)"},
		{"twice, written apart", head + "  - bin/tool\n  - ./bin/../bin/tool\n", 4, 5, KindDuplicate, "listed twice (first on line 3, as bin/tool)"},
		{"a list item", head + "  - [/usr/bin/git, /usr/bin/env]\n", 3, 5, KindSchema, "write one program per line"},
		{"unknown key", head + "  - path: /usr/bin/git\n    why: x\n", 4, 5, KindSchema, `unknown key "why" in a program entry (known: path, reason, sha256)`},
		{"syscall form", head + "  - /usr/bin/sh: runs hooks\n", 3, 5, KindSchema, `unknown key "/usr/bin/sh" in a program entry`},
		{"no path", head + "  - reason: r\n", 3, 5, KindSchema, "program entry without a path"},
		{"key twice", head + "  - {path: /usr/bin/git, path: /usr/bin/env}\n", 3, 26, KindDuplicate, `key "path" given twice in a program entry`},
		{"pattern without reason", head + "  - /opt/*/bin/tool\n", 3, 5, KindProgram, `pattern /opt/*/bin/tool needs a reason: say why the program's name varies, as "- path: /opt/*/bin/tool"`},
		{"relative pattern without reason", head + "  - ../*.py\n", 3, 5, KindProgram, "pattern ../*.py needs a reason"},
		{"malformed pattern", head + "  - path: /opt/[a\n    reason: r\n", 3, 11, KindProgram, "pattern /opt/[a: malformed"},
		{"double star", head + "  - path: /opt/**/tool\n    reason: r\n", 3, 11, KindProgram, `"**" matches like "*"`},
		{"risky", head + "  - /usr/bin/curl\n", 3, 5, KindRisk, `/usr/bin/curl is risky (downloader, high): moves data over the network on its own`},
		{"risky, versioned", head + "  - /usr/bin/x86_64-linux-gnu-gcc-14\n", 3, 5, KindRisk, `is risky (compiler)`},
		{"risky, versioned shell", head + "  - /bin/bash5\n", 3, 5, KindRisk, `give a reason, as "- path: /bin/bash5" with "reason: why the agent runs it"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDocument("f.yaml", []byte(c.src))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			for _, e := range Errors(err) {
				if e.Kind == c.kind && e.Line == c.line && e.Col == c.col && strings.Contains(e.Message, c.substr) && !e.Warning {
					return
				}
			}
			t.Errorf("want %d:%d [%s] containing %q; got:\n%v", c.line, c.col, c.kind, c.substr, err)
		})
	}
}

func TestProgramsOnlyFileAndEmptySection(t *testing.T) {
	for _, src := range []string{"version: 1\nprograms: []\n", "version: 1\nprograms:\n  - /usr/bin/env\n"} {
		doc, err := ParseDocument("f.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if !doc.HasPrograms {
			t.Errorf("%q: HasPrograms not set", src)
		}
		if got := string(doc.Format()); got != DefaultHeader+"\n\n"+src {
			t.Errorf("%q formats as\n%s", src, got)
		}
	}
	doc, err := ParseDocument("f.yaml", []byte("version: 1\nsyscalls: {x86_64: [read]}\n"))
	if err != nil || doc.HasPrograms || strings.Contains(string(doc.Format()), "programs") {
		t.Errorf("a file without programs got a section: %v", err)
	}
}

func TestProgramsReviewWarnings(t *testing.T) {
	src := "version: 1\nprograms:\n" +
		"  - path: /usr/bin/bash\n    reason: \"unreviewed: seen in record mode\"\n" +
		"  - path: /opt/*/tool\n    reason: unreviewed\n" +
		"  - path: /usr/bin/git\n    reason: unreviewed, but git is no risk\n"
	doc, err := ParseDocument("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range doc.Warnings {
		got = append(got, w.Error())
	}
	want := []string{
		"f.yaml:3: warning: /usr/bin/bash needs a reviewed reason and its reason is still the record-mode placeholder: review it [unreviewed]",
		"f.yaml:5: warning: /opt/*/tool needs a reviewed reason and its reason is still the record-mode placeholder: review it [unreviewed]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestProgramsRoundTripAndLayout(t *testing.T) {
	src := `# header
version: 1
syscalls:
  x86_64: [read]
programs: [/usr/bin/zsh5: x, {path: /usr/lib/node_modules/*/bin/*, reason: "npm bins: versioned"}]
`
	if _, err := ParseDocument("f.yaml", []byte(src)); err == nil {
		t.Fatal("the syscall form of a program entry must not parse")
	}
	src = `# header
version: 1
syscalls:
  x86_64: [read]
programs:
  - /usr/bin/python3.13 # the interpreter
  - {path: "/usr/lib/node_modules/*/bin/*", reason: "npm bins: versioned"}
  # runs the hooks
  - path: /usr/bin/zsh5
    reason: hooks
  - /usr/bin/\[
extends: [base.yaml]
`
	doc, err := ParseDocument("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `# header

version: 1
extends:
  - base.yaml
programs:
  - "/usr/bin/\\["
  - /usr/bin/python3.13 # the interpreter
  - path: /usr/bin/zsh5
    reason: hooks
  - path: /usr/lib/node_modules/*/bin/*
    reason: "npm bins: versioned"
syscalls:
  x86_64:
    - read
`
	// "# runs the hooks" sits above the entry: kept, with it.
	want = strings.Replace(want, "  - path: /usr/bin/zsh5\n", "  # runs the hooks\n  - path: /usr/bin/zsh5\n", 1)
	again := formatsAs(t, doc, want)
	if !reflect.DeepEqual(content(doc), content(again)) {
		t.Errorf("content changed by formatting")
	}
	if e := again.Programs[0]; e.Path != "/usr/bin/[" || e.Pattern || !e.Matches("/usr/bin/[") {
		t.Errorf(`an escaped "[" is the program "[": %+v`, e)
	}
}

func TestProgramsResolveRelativeToTheFile(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "real/agents/a.yaml", "version: 1\nprograms:\n  - ../tools/run.sh\n  - /usr/bin/../bin/env\n  - path: ../tools/*.py\n    reason: generated tools\n")
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	// Reached through a symlink, the file's directory is resolved as the
	// kernel resolves the programs an observation names.
	p, err := Load(filepath.Join(root, "link", "agents", "a.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got := p.Docs[0].Programs
	tools := filepath.Join(root, "real", "tools")
	if got[0].Path != tools+"/*.py" || !got[0].Pattern || got[0].Written != "../tools/*.py" {
		t.Errorf("relative pattern: %+v", got[0])
	}
	if got[1].Path != tools+"/run.sh" || got[1].Pattern || got[1].Written != "../tools/run.sh" || got[1].Line != 3 || got[1].Col != 5 || got[1].File != filepath.Join(root, "link", "agents", "a.yaml") {
		t.Errorf("relative path: %+v", got[1])
	}
	if got[2].Path != "/usr/bin/env" || got[2].Written != "/usr/bin/../bin/env" {
		t.Errorf("absolute path is cleaned, written kept: %+v", got[2])
	}
	if !p.AllowsProgram(tools+"/gen.py") || p.AllowsProgram(tools+"/sub/gen.py") || !p.AllowsProgram(tools+"/run.sh") {
		t.Errorf("lookups through the resolved paths")
	}
	// Pattern characters in the file's own directory are literal.
	if path, pattern := resolveProgram("/work/my[repo]", "bin/*"); path != `/work/my\[repo]/bin/*` || !pattern {
		t.Errorf("resolve in a directory with [: %q %v", path, pattern)
	}
	e := ProgramEntry{Path: `/work/my\[repo]/bin/*`, Pattern: true}
	if !e.Matches("/work/my[repo]/bin/x") || e.Matches("/work/myr/bin/x") {
		t.Errorf("escaped directory matches the wrong programs")
	}
}

func TestProgramPatternsMatchOneElementAtATime(t *testing.T) {
	cases := []struct {
		pattern, prog string
		want          bool
	}{
		{"/usr/lib/node_modules/*/bin/*", "/usr/lib/node_modules/npm/bin/npx-cli.js", true},
		{"/usr/lib/node_modules/*/bin/*", "/usr/lib/node_modules/@scope/pkg/bin/x", false}, // "*" does not cross "/"
		{"/usr/lib/node_modules/*/bin/*", "/usr/lib/node_modules/npm/bin/sub/x", false},
		{"/opt/*", "/opt/a", true},
		{"/opt/*", "/opt/a/b", false},
		{"/opt/*", "/opt", false},
		{"/opt/tool-?/run", "/opt/tool-1/run", true},
		{"/opt/tool-?/run", "/opt/tool-/run", false},
		{"/opt/a[^x]b", "/opt/a/b", false}, // path.Match alone lets a class match "/"
		{"/opt/a[^x]b", "/opt/ayb", true},
		{"/usr/bin/python3.[0-9]*", "/usr/bin/python3.13", true},
		{`/usr/bin/\*`, "/usr/bin/*", true},
		{`/usr/bin/\*`, "/usr/bin/x", false},
	}
	for _, c := range cases {
		e := ProgramEntry{Path: c.pattern, Pattern: true}
		if got := e.Matches(c.prog); got != c.want {
			t.Errorf("%s matches %s: %v, want %v", c.pattern, c.prog, got, c.want)
		}
	}
	if !(ProgramEntry{Path: "/usr/bin/a*"}).Matches("/usr/bin/a*") || (ProgramEntry{Path: "/usr/bin/a*"}).Matches("/usr/bin/ab") {
		t.Errorf("an exact entry compares the path, never as a pattern")
	}
	// The program "*" and the pattern "*" are two entries, not one twice.
	doc, err := ParseDocument("f.yaml", []byte("version: 1\nprograms:\n  - /usr/bin/\\*\n  - path: /usr/bin/*\n    reason: r\n"))
	if err != nil || len(doc.Programs) != 2 || !doc.Programs[0].Pattern || doc.Programs[1].Pattern {
		t.Errorf("escaped program and pattern: %v %+v", err, doc)
	}
}

func TestLoadStackPrograms(t *testing.T) {
	dir := t.TempDir()
	base := writeFile(t, dir, "base.yaml", "version: 1\nprograms:\n  - /usr/bin/env\n  - path: /opt/*/bin/tool\n    reason: one per version\n")
	agent := writeFile(t, dir, "a.yaml", "version: 1\nagent: a\nextends: [base.yaml]\nprograms:\n  - /opt/v2/bin/tool\n  - /usr/bin/python3.13\n")
	p, err := Load(agent)
	if err != nil {
		t.Fatal(err)
	}
	if !p.GatesPrograms() || p.ProgramBlindWarning() != nil {
		t.Errorf("the stack has programs sections")
	}
	// The exact entry of the agent's file names the program better than
	// the base's pattern, as a class entry does its syscall's blind one.
	if e, ok := p.LookupProgram("/opt/v2/bin/tool"); !ok || e.File != agent || e.Line != 5 {
		t.Errorf("exact entry before a pattern: %+v %v", e, ok)
	}
	if e, ok := p.LookupProgram("/opt/v3/bin/tool"); !ok || e.File != base || !e.Pattern {
		t.Errorf("pattern of the base: %+v %v", e, ok)
	}
	if p.AllowsProgram("/usr/bin/perl") {
		t.Errorf("perl allowed")
	}
	if got, want := p.String(), "baseline "+agent+" (+1 extended): programs 4"; got != want {
		t.Errorf("profile prints as %q, want %q", got, want)
	}

	writeFile(t, dir, "dup.yaml", "version: 1\nextends: [base.yaml]\nprograms:\n  - /usr/bin/python3.13\n  - /usr/bin/../bin/env\n")
	_, err = Load(filepath.Join(dir, "dup.yaml"))
	want := filepath.Join(dir, "dup.yaml") + ":5: program /usr/bin/../bin/env (/usr/bin/env) is already allowed by " + base + ":3 [duplicate]"
	if errs := Errors(err); len(errs) != 1 || errs[0].Error() != want || errs[0].Col != 5 {
		t.Errorf("duplicate across the stack:\n%v\nwant\n%s", err, want)
	}
	// Two stacks given side by side may overlap, as for syscalls.
	if _, err := LoadStack(base, writeFile(t, dir, "other.yaml", "version: 1\nprograms: [/usr/bin/env]\n")); err != nil {
		t.Errorf("independent files: %v", err)
	}

	blind, err := Load(writeFile(t, dir, "blind.yaml", "version: 1\nagent: b\nsyscalls: {x86_64: [read]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := blind.ProgramBlindWarning()
	if blind.GatesPrograms() || w == nil || !w.Warning || w.Kind != KindProgramBlind || w.File != filepath.Join(dir, "blind.yaml") ||
		!strings.Contains(w.Error(), "programs are not gated") || !errors.Is(w, ErrInvalid) {
		t.Errorf("program-blind warning: %v", w)
	}
	if strings.Contains(blind.String(), "programs") {
		t.Errorf("a profile without programs mentions them: %s", blind)
	}
}

func TestProgramInsertWithoutEntries(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nprograms: [/usr/bin/env]\n")
	cases := []struct {
		src  string
		line int
	}{
		{"version: 1\nagent: a\nextends: [base.yaml]\nsyscalls:\n  x86_64: [read]\n", 4}, // where the section would start
		{"version: 1\nagent: a\nextends: [base.yaml]\ngroups:\n  g:\n    reason: r\n    syscalls: {x86_64: [poll]}\n", 4},
		{"version: 1\nagent: a\nextends: [base.yaml]\n", 4},                                                         // the end of the file
		{"version: 1\nagent: a\nprograms: []\nsyscalls:\n  x86_64: [read]\n", 4},                                    // an empty list opens
		{"version: 1\nagent: a\nunmonitored:\n  x86_64:\n    - io_uring_setup: r\nsyscalls: {x86_64: [read]}\n", 3}, // the first section, in file order
	}
	for i, c := range cases {
		path := writeFile(t, dir, "a.yaml", c.src)
		p, err := Load(path)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if file, line := p.ProgramInsert("/usr/bin/git"); file != path || line != c.line {
			t.Errorf("case %d: insert at %s:%d, want line %d", i, file, line, c.line)
		}
	}
	if file, line := (*Profile)(nil).ProgramInsert("/usr/bin/git"); file != "" || line != 0 {
		t.Errorf("no profile: %s:%d", file, line)
	}
}
