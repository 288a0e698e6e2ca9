package landlock

import (
	"os"
	"path/filepath"
	"testing"
)

// systemRead is what a dynamically linked program needs to start: its
// libraries and the loader's cache.
var systemRead = []PathRule{
	{Path: "/usr/lib", Read: true}, {Path: "/lib", Read: true}, {Path: "/lib64", Read: true},
	{Path: "/etc/ld.so.cache", Read: true},
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o700); err != nil {
		t.Fatal(err)
	}
}

// Programs need EXECUTE and READ_FILE on the program itself. The ELF
// interpreter is opened by the kernel for execve too.
func TestRulesetPrograms(t *testing.T) {
	abi := requireABI(t, 3)
	d := t.TempDir()
	allowed, denied := filepath.Join(d, "allowed"), filepath.Join(d, "denied")
	copyFile(t, "/bin/true", allowed)
	copyFile(t, "/bin/true", denied)
	rules := append(ProgramRules([]string{allowed}), systemRead...)
	rules = append(rules, PathRule{Path: denied, Read: true})
	rs, _ := build(t, abi, rules)
	got := inChild(t, rs, 0, "exec "+allowed, "exec "+denied, "exec /bin/true")
	expect(t, got, map[string]string{
		"exec " + allowed: "ok",
		"exec " + denied:  "EACCES",
		"exec /bin/true":  "EACCES",
	})
}

// Without EXECUTE on ld.so a dynamic program cannot start, even with
// EXECUTE on the program itself: why ProgramRules adds the interpreter.
func TestRulesetProgramNeedsInterpreter(t *testing.T) {
	abi := requireABI(t, 3)
	d := t.TempDir()
	prog := filepath.Join(d, "prog")
	copyFile(t, "/bin/true", prog)
	if interpreter(prog) == "" {
		t.Skip("/bin/true is static here")
	}
	rules := append([]PathRule{{Path: prog, Read: true, Exec: true}}, systemRead...)
	rs, _ := build(t, abi, rules)
	got := inChild(t, rs, 0, "exec "+prog)
	expect(t, got, map[string]string{"exec " + prog: "EACCES"})
}

func TestInterpreter(t *testing.T) {
	d := t.TempDir()
	script := filepath.Join(d, "s")
	if err := os.WriteFile(script, []byte("#!/bin/sh -e\necho\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got := interpreter(script); got != "/bin/sh" {
		t.Errorf("script interpreter %q", got)
	}
	rules := ProgramRules([]string{script})
	if len(rules) < 2 || rules[1].Path != "/bin/sh" || !rules[1].Exec {
		t.Errorf("ProgramRules(script) = %+v, want the script then /bin/sh", rules)
	}
}
