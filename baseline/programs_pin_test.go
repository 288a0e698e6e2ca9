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
