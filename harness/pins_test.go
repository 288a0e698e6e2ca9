package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

var (
	sumTool = strings.Repeat("a", 64)
	sumHead = strings.Repeat("b", 64)
)

// TestProgramBookRehashesWhatRan: the content checked when the exec was
// answered is the content the kernel ran, unless the file was rewritten
// in between (same inode, same path): then the exec is a mismatch naming
// both.
func TestProgramBookRehashesWhatRan(t *testing.T) {
	for _, c := range []struct {
		name, ran, mismatch string
	}{
		{"unchanged", sumTool, ""},
		{"rewritten before the kernel read it", sumHead, "sha256 " + sumHead + "; sysgate checked sha256 " + sumTool},
	} {
		t.Run(c.name, func(t *testing.T) {
			proc := &fakeProc{exes: map[int][]fakeExe{7: {{id: idTrue, path: "/w/tool.sh"}}}, stats: map[int]kernel.Stat{}}
			b := newProgramBook()
			b.readExe, b.readStat, b.openPidfd = proc.readExe, proc.readStat, noPidfd
			b.sumExe = func(int, kernel.Sum) (kernel.FileID, string, error) { return idTrue, c.ran, nil }
			e := execClaim(7, "/w/tool.sh", idTrue)
			e.expectSum = sumTool
			b.exec(e)
			b.close()
			checkBook(t, b, c.mismatch, 0, 0, []string{"/w/tool.sh"})
		})
	}
}

func TestPinMismatches(t *testing.T) {
	src := "version: 1\nprograms:\n  - {path: /w/tool.sh, sha256: " + sumTool + "}\n  - /usr/bin/env\n"
	doc, err := baseline.ParseDocument("b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := &baseline.Profile{Docs: []*baseline.Document{doc}}
	exec := func(path, sum string) *execSeen {
		e := execClaim(7, path, idTrue)
		if sum != "" {
			e.runs[0].SHA256 = []string{sum}
		}
		return e
	}
	for _, c := range []struct {
		exec *execSeen
		want string
	}{
		{exec("/w/tool.sh", sumTool), ""},
		{exec("/w/tool.sh", sumHead), "/w/tool.sh is sha256 " + sumHead + "; b.yaml:3 pins sha256 " + sumTool},
		{exec("/w/tool.sh", ""), "/w/tool.sh is unreadable to sysgate"},
		{exec("/usr/bin/env", sumHead), ""},  // no pin: the path decides
		{exec("/usr/bin/curl", sumHead), ""}, // not listed: the path gate's matter
	} {
		_, why := pinMismatches(p, nil, c.exec)
		got := strings.Join(why, "\n")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.exec.requested, got, c.want)
		}
	}
}

func TestWritableNotes(t *testing.T) {
	dir := t.TempDir()
	tool := dir + "/tool.sh"
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tool, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	notes := writableNotes([]verdict.ProgramRun{{Path: tool}, {Path: "memfd:x"}}, nil)
	if len(notes) != 1 || !strings.Contains(notes[0], "program "+tool+" can be replaced by the agent") || !strings.HasSuffix(notes[0], "no baseline entry pins its content") {
		t.Errorf("notes %q", notes)
	}
}

// A run hashes what a baseline pins and what the agent could replace:
// everything for a root agent, else a file another user can write; a
// system program only root can write is matched by path.
func TestPinWanted(t *testing.T) {
	dir := t.TempDir()
	tool := dir + "/tool.sh"
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tool, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	doc, err := baseline.ParseDocument("b.yaml", []byte("version: 1\nprograms:\n  - {path: /usr/bin/env, sha256: "+sumTool+"}\n  - /usr/bin/true\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := &baseline.Profile{Docs: []*baseline.Document{doc}}
	user, root := pinWanted(p, false, nil), pinWanted(p, true, nil)
	// What the agent can write is hashed at every exec, never from the
	// cache (issue 43, item 6): a root agent can write every program.
	for _, c := range []struct {
		path       string
		user, root kernel.Sum
	}{
		{tool, kernel.SumFresh, kernel.SumFresh},
		{"/usr/bin/env", kernel.SumCached, kernel.SumFresh}, // pinned
		{"/usr/bin/true", kernel.SumSkip, kernel.SumFresh},  // root-owned, unpinned
	} {
		if baseline.ProgramWritable(c.path) != "" && c.user != kernel.SumFresh {
			t.Skipf("[environment]: %s is writable by a user other than root on this machine", c.path)
		}
		if got := user(c.path); got != c.user {
			t.Errorf("non-root agent, %s: hashed %v, want %v", c.path, got, c.user)
		}
		if got := root(c.path); got != c.root {
			t.Errorf("root agent, %s: hashed %v, want %v", c.path, got, c.root)
		}
	}
}

// The workspace's listed programs are hashed before the run (issue 43,
// item 15): an exec of one with another content is a mismatch; one made
// during the run, and a program outside the workspace, are left to their
// entries.
func TestHeldPrograms(t *testing.T) {
	ws := t.TempDir()
	agent, script, later := ws+"/agent.py", ws+"/bin/run.sh", ws+"/later.sh"
	if err := os.Mkdir(ws+"/bin", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{agent, script} {
		if err := os.WriteFile(f, []byte("print(1)\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := "version: 1\nprograms:\n  - " + agent + "\n  - " + later + "\n  - {path: " + ws + "/bin/*, reason: scripts}\n  - /usr/bin/env\n"
	doc, err := baseline.ParseDocument(ws+"/b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := &baseline.Profile{Docs: []*baseline.Document{doc}}
	held := heldPrograms(p, ws)
	_, start, err := programSums.SumFile(agent, kernel.SumFresh)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 2 || held[agent] != start || held[script] != start {
		t.Fatalf("held %v, want %s and %s at %s (%s did not exist)", held, agent, script, start, later)
	}
	if len(heldPrograms(p, "/")) != 0 {
		t.Errorf("a run in / holds every program")
	}
	if pinWanted(p, false, held)(agent) != kernel.SumFresh {
		t.Errorf("a held program is not hashed at every exec")
	}
	exec := func(path, sum string) *execSeen {
		e := execClaim(7, path, idTrue)
		e.runs[0].SHA256 = []string{sum}
		return e
	}
	for _, c := range []struct {
		exec *execSeen
		want string
	}{
		{exec(agent, start), ""},
		{exec(agent, sumHead), agent + " is sha256 " + sumHead + "; it was sha256 " + start + " at the run's start"},
		{exec(script, sumHead), "the agent changed a program of the workspace during the run"},
		{exec(later, sumHead), ""}, // made during the run: its entry judges it
		{exec("/usr/bin/env", sumHead), ""},
	} {
		_, why := pinMismatches(p, held, c.exec)
		got := strings.Join(why, "\n")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.exec.requested, got, c.want)
		}
	}
}

// In a git work tree only what git tracks is the repository's own: a
// build output beside it is not held, so a build step may rebuild it.
func TestHeldProgramsAreTracked(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("[environment]: no git")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	agent, built := filepath.Join(root, "agent.py"), filepath.Join(root, "bin", "tool")
	if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{agent, built} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "agent.py"}} {
		if out, err := exec.Command(git, append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	base := filepath.Join(root, "b.yaml")
	doc, err := baseline.ParseDocument(base, []byte("version: 1\nprograms:\n  - agent.py\n  - bin/tool\n"))
	if err != nil {
		t.Fatal(err)
	}
	held := heldPrograms(&baseline.Profile{Docs: []*baseline.Document{doc}}, "/elsewhere")
	if _, ok := held[agent]; !ok || len(held) != 1 {
		t.Fatalf("held %v, want only the tracked %s", held, agent)
	}
}
