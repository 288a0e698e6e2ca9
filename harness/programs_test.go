package harness

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// programOf returns the run's program at path.
func programOf(r *verdict.Result, path string) (verdict.ProgramRun, bool) {
	for _, p := range r.Programs {
		if p.Path == path {
			return p, true
		}
	}
	return verdict.ProgramRun{}, false
}

func programPaths(r *verdict.Result) []string {
	var out []string
	for _, p := range r.Programs {
		out = append(out, p.Path)
	}
	return out
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestExecOpensAgreeAcrossBackends: an exec opens for execution the
// program, its "#!" interpreter and the ELF interpreter (ld.so) of the
// program that runs; the audit backend reads them from the exec's PATH
// records, the notify backend from the files themselves, and both list
// the same files with the same counts: a baseline recorded on either
// passes a check on the other (issue 42, item 7).
func TestExecOpensAgreeAcrossBackends(t *testing.T) {
	testutil.RequireAudit(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "build.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n/usr/bin/env true\nls / >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ld, err := os.Open("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	interp, err := kernel.ELFInterpreter(ld)
	ld.Close()
	if err != nil || interp == "" {
		t.Fatalf("/bin/sh: no ELF interpreter (%v): this test needs a dynamic /bin/sh", err)
	}
	ldso := realPath(t, interp)
	// Without programs (--no-programs) the files are observed all the
	// same: notify then reads each exec for its files alone.
	for _, programs := range []bool{true, false} {
		exec := map[verdict.Backend]map[string]uint64{}
		for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
			opts := []Option{WithMode(baseline.ModeRecord), WithBackend(backend)}
			if !programs {
				opts = append(opts, WithoutPrograms())
			}
			r := mustRun(t, Agent{Command: []string{script}, Dir: dir}, opts...)
			exec[backend] = r.Observed.Files["exec"]
			// sh, env, true and ls each load through ld.so.
			if got := exec[backend][ldso]; got != 4 {
				t.Errorf("%s, programs %t: exec of %s %d times, want 4: %v", backend, programs, ldso, got, exec[backend])
			}
			for _, p := range []string{realPath(t, "/bin/sh"), "/usr/bin/env", "/usr/bin/true", realPath(t, "/usr/bin/ls")} {
				if exec[backend][p] != 1 {
					t.Errorf("%s, programs %t: exec of %s %d times, want once: %v", backend, programs, p, exec[backend][p], exec[backend])
				}
			}
		}
		if !maps.Equal(exec[verdict.BackendAudit], exec[verdict.BackendNotify]) {
			t.Errorf("programs %t: the backends saw different execs:\naudit  %v\nnotify %v", programs, exec[verdict.BackendAudit], exec[verdict.BackendNotify])
		}
	}
}

// TestProgramsOfAScript: a "#!" script is listed with its interpreter,
// each program with its argv and the program that ran it, on both
// backends.
func TestProgramsOfAScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "build.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n/usr/bin/env true --token hunter2\nls / >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh, ls := realPath(t, "/bin/sh"), realPath(t, "/usr/bin/ls")
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		t.Run(string(backend), func(t *testing.T) {
			r := mustRun(t, Agent{Command: []string{script}, Dir: dir}, WithMode(baseline.ModeRecord), WithBackend(backend))
			want := map[string]struct{ role, parent string }{
				script:          {verdict.RoleScript, ""},
				sh:              {verdict.RoleInterpreter, ""},
				"/usr/bin/env":  {verdict.RoleProgram, sh},
				"/usr/bin/true": {verdict.RoleProgram, "/usr/bin/env"},
				ls:              {verdict.RoleProgram, sh},
			}
			for path, w := range want {
				p, ok := programOf(r, path)
				if !ok {
					t.Errorf("program %s missing; got %q", path, programPaths(r))
					continue
				}
				if p.Role != w.role || p.Parent != w.parent {
					t.Errorf("%s: role %q parent %q, want %q and %q", path, p.Role, p.Parent, w.role, w.parent)
				}
				if r.Observed.Programs[path] == 0 {
					t.Errorf("%s not in the observation: %v", path, r.Observed.Programs)
				}
			}
			if len(r.Programs) != len(want) {
				t.Errorf("programs = %q, want exactly %d", programPaths(r), len(want))
			}
			if p, _ := programOf(r, "/usr/bin/true"); !slices.Equal(p.Argv, []string{"true", "--token", Redacted}) {
				t.Errorf("argv of true = %q, want the token redacted", p.Argv)
			}
			if p, _ := programOf(r, sh); p.Risk != risk.Shell {
				t.Errorf("%s risk = %q, want shell", sh, p.Risk)
			}
			if len(r.ProgramViolations) != 0 || !r.Conclusive() {
				t.Errorf("record run: program violations %v, inconclusive %q", r.ProgramViolations, r.Inconclusive)
			}
		})
	}
}

// TestProgramFromMemory: a program run from a memfd (execveat with
// AT_EMPTY_PATH, nothing on disk) is listed as memfd:NAME.
func TestProgramFromMemory(t *testing.T) {
	py := testutil.Python(t)
	code := `import os
fd = os.memfd_create("payload")
os.write(fd, open("/usr/bin/true", "rb").read())
os.execve(fd, ["payload"], {})`
	r := mustRun(t, Agent{Command: []string{py, "-c", code}}, WithMode(baseline.ModeRecord))
	if _, ok := programOf(r, "memfd:payload"); !ok {
		t.Fatalf("programs = %q, want memfd:payload", programPaths(r))
	}
}

// TestWithoutProgramsListsNothing: with program observation off, no
// program is listed (the notify backend still reads each exec, for the
// files it opens) and every report says so.
func TestWithoutProgramsListsNothing(t *testing.T) {
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		r := mustRun(t, Agent{Command: []string{"/bin/sh", "-c", "/usr/bin/true"}}, WithMode(baseline.ModeRecord), WithoutPrograms(), WithBackend(backend))
		if len(r.Programs) != 0 {
			t.Errorf("%s: programs = %q, want none", backend, programPaths(r))
		}
		if !strings.Contains(strings.Join(r.Weakened, "; "), "programs not observed") {
			t.Errorf("%s: weakened = %q, want it to name the programs", backend, r.Weakened)
		}
	}
}

// TestLongScriptOperandIsListed: the script an interpreter is given is
// read whole, not as the report's truncated argv shows it.
func TestLongScriptOperandIsListed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("a-long-directory-name-", 5))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "agent.py")
	if err := os.WriteFile(script, []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	py := realPath(t, testutil.Python(t))
	r := mustRun(t, Agent{Command: []string{py, "-I", script}}, WithMode(baseline.ModeRecord))
	if p, ok := programOf(r, script); !ok || p.Role != verdict.RoleScript {
		t.Fatalf("programs = %q, want the script %s (%d bytes)", programPaths(r), script, len(script))
	}
	if p, _ := programOf(r, py); !strings.HasSuffix(p.Argv[2], "...") {
		t.Errorf("argv %q: want the long operand truncated in the report", p.Argv)
	}
}
