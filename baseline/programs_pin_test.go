package baseline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

var (
	sumA = strings.Repeat("a", 64)
	sumB = strings.Repeat("b", 64)
	sumC = strings.Repeat("c", 64)
)

func TestProgramPinsParseAndFormat(t *testing.T) {
	src := "version: 1\nprograms:\n  - {path: /usr/bin/git, sha256: " + sumA + "}\n" +
		"  - path: /opt/*/t\n    reason: r\n    sha256: [" + sumB + ", " + sumA + "]\n  - /usr/bin/env\n"
	doc, err := ParseDocument("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultHeader + "\n\nversion: 1\nprograms:\n" +
		"  - path: /opt/*/t\n    reason: r\n    sha256:\n      - " + sumA + "\n      - " + sumB + "\n" +
		"  - /usr/bin/env\n" +
		"  - path: /usr/bin/git\n    sha256: " + sumA + "\n"
	formatsAs(t, doc, want)
	git, _ := (&Profile{Docs: []*Document{doc}}).LookupProgram("/usr/bin/git")
	if msg := git.CheckContent("/usr/bin/git", sumA); msg != "" {
		t.Errorf("the pinned content: %q", msg)
	}
	if msg := git.CheckContent("/usr/bin/git", sumB); !strings.Contains(msg, "/usr/bin/git is sha256 "+sumB) || !strings.Contains(msg, "f.yaml:3 pins sha256 "+sumA) {
		t.Errorf("another content: %q", msg)
	}
	if msg := git.CheckContent("/usr/bin/git", ""); !strings.Contains(msg, "unreadable") {
		t.Errorf("an unreadable file: %q", msg)
	}
	env, _ := (&Profile{Docs: []*Document{doc}}).LookupProgram("/usr/bin/env")
	if msg := env.CheckContent("/usr/bin/env", ""); msg != "" {
		t.Errorf("an entry without a pin matches by path: %q", msg)
	}

	for _, bad := range []struct{ src, substr string }{
		{"  - {path: /x, sha256: " + strings.ToUpper(sumA) + "}\n", "not 64 lowercase hex digits"},
		{"  - {path: /x, sha256: abc}\n", "not 64 lowercase hex digits"},
		{"  - {path: /x, sha256: [" + sumA + ", " + sumA + "]}\n", "given twice"},
		{"  - {path: /x, sha256: {a: b}}\n", "sha256"},
	} {
		if _, err := ParseDocument("f.yaml", []byte("version: 1\nprograms:\n"+bad.src)); err == nil || !strings.Contains(err.Error(), bad.substr) {
			t.Errorf("%q: err %v, want %q", bad.src, err, bad.substr)
		}
	}
}

func TestRecordPinsPrograms(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	o.AddProgram("/usr/bin/git", 1)
	o.AddProgramSHA256("/usr/bin/git", sumA)
	o.AddProgram("/usr/bin/env", 1) // unreadable: no pin
	if _, err := WriteRecorded(path, o, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "  - /usr/bin/env\n  - path: /usr/bin/git\n    sha256: "+sumA+"\n") {
		t.Fatalf("recorded:\n%s", data)
	}

	// An old entry without a pin gets one; with --merge a new content
	// joins the old, without it replaces it.
	o2 := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	o2.AddProgram("/usr/bin/git", 1)
	o2.AddProgramSHA256("/usr/bin/git", sumB)
	o2.AddProgram("/usr/bin/env", 1)
	o2.AddProgramSHA256("/usr/bin/env", sumC)
	if _, err := WriteRecorded(path, o2, RecordOptions{Merge: true}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if !strings.Contains(string(data), "  - path: /usr/bin/env\n    sha256: "+sumC+"\n  - path: /usr/bin/git\n    sha256:\n      - "+sumA+"\n      - "+sumB+"\n") {
		t.Fatalf("merged:\n%s", data)
	}
	if _, err := WriteRecorded(path, o2, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if !strings.Contains(string(data), "  - path: /usr/bin/git\n    sha256: "+sumB+"\n") {
		t.Fatalf("re-recorded:\n%s", data)
	}

	// Observations merge their contents.
	o.Merge(o2)
	if got := strings.Join(o.ProgramSHA256["/usr/bin/git"], ","); got != sumA+","+sumB {
		t.Errorf("merged observation: %s", got)
	}
}

// Issue 43, item 15: record reports every pin it changes, and writes no
// pin for a program of the workspace (held to its content at each run's
// start instead), dropping one an older record wrote.
func TestRecordReportsPinChangesAndHoldsTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	agent := filepath.Join(dir, "agent.py")
	run := func(merge bool, sums map[string]string, held ...string) *RecordResult {
		t.Helper()
		o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
		for prog, sum := range sums {
			o.AddProgram(prog, 1)
			o.AddProgramSHA256(prog, sum)
		}
		for _, prog := range held {
			o.AddHeldProgram(prog)
		}
		res, err := WriteRecorded(path, o, RecordOptions{Merge: merge})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// An older record pinned the agent's own script.
	if res := run(false, map[string]string{agent: sumA, "/usr/bin/git": sumA}); len(res.PinChanges) != 0 {
		t.Fatalf("a first record changes no pin: %+v", res.PinChanges)
	}
	// The tool changed: the summary says so (it said "0 added, 0
	// removed").
	res := run(false, map[string]string{agent: sumA, "/usr/bin/git": sumB})
	if len(res.PinChanges) != 1 || res.PinChanges[0].Program != "/usr/bin/git" || res.PinChanges[0].Old[0] != sumA || res.PinChanges[0].New[0] != sumB {
		t.Fatalf("pin changes: %+v", res.PinChanges)
	}
	if got := res.PinChanges[0].String(); got != "/usr/bin/git: sha256 aaaaaaaaaaaa… → bbbbbbbbbbbb…" {
		t.Errorf("pin change: %q", got)
	}
	// Now the agent ran from the workspace: its pin goes, even with
	// --merge, and is reported.
	for _, merge := range []bool{true, false} {
		run(false, map[string]string{agent: sumA, "/usr/bin/git": sumB})
		res = run(merge, map[string]string{agent: sumC, "/usr/bin/git": sumB}, agent)
		if len(res.PinChanges) != 1 || res.PinChanges[0].Program != agent || len(res.PinChanges[0].New) != 0 ||
			!strings.Contains(res.PinChanges[0].String(), "pin dropped (a program of the workspace") {
			t.Fatalf("merge %v: pin changes: %+v", merge, res.PinChanges)
		}
		data, _ := os.ReadFile(path)
		if !strings.Contains(string(data), "  - "+agent+"\n") || strings.Contains(string(data), sumC) {
			t.Fatalf("merge %v: the workspace's program is named by path, unpinned:\n%s", merge, data)
		}
	}
	// A new entry of the workspace is written without a pin.
	os.Remove(path)
	run(false, map[string]string{agent: sumA}, agent)
	if data, _ := os.ReadFile(path); strings.Contains(string(data), "sha256") {
		t.Fatalf("recorded:\n%s", data)
	}
}

// A program of the repository that holds the baseline file is held, not
// pinned: record writes no sha256 for it, and validate neither counts it
// unpinned nor fails --strict on it for being writable.
func TestRepositoryProgramsAreHeld(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	agent, path := filepath.Join(root, "agent.py"), filepath.Join(root, "baselines", "a.yaml")
	if err := os.WriteFile(agent, []byte("print(1)\n"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(agent, 0o777); err != nil { // writable by others: past the umask
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if !InRepository(path, agent) || InRepository(path, "/usr/bin/env") {
		t.Fatalf("InRepository: %v for the agent, %v for /usr/bin/env", InRepository(path, agent), InRepository(path, "/usr/bin/env"))
	}
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	o.AddProgram(agent, 1)
	o.AddProgramSHA256(agent, sumA)
	if _, err := WriteRecorded(path, o, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "  - ../agent.py\n") || strings.Contains(string(data), "sha256") {
		t.Fatalf("recorded:\n%s", data)
	}
	doc, err := ParseDocument(path, data)
	if err != nil {
		t.Fatal(err)
	}
	warnings := (&Profile{Docs: []*Document{doc}}).ProgramPinWarnings()
	if len(warnings) != 1 || warnings[0].Kind != KindProgramWritable || !warnings[0].Advisory || !strings.Contains(warnings[0].Message, "a program of the repository") {
		t.Fatalf("warnings: %v", warnings)
	}
}
