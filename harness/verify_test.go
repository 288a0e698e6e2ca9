package harness

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

// fakeProc is a process table for programBook: each pid's executable as
// a sequence of reads (the last one repeats), and its stat.
type fakeProc struct {
	mu    sync.Mutex
	exes  map[int][]fakeExe
	stats map[int]kernel.Stat
}

type fakeExe struct {
	id   kernel.FileID
	path string
	err  error
}

func (f *fakeProc) set(pid int, exes ...fakeExe) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exes[pid] = exes
}

func (f *fakeProc) readExe(pid int) (kernel.FileID, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq := f.exes[pid]
	if len(seq) == 0 {
		return kernel.FileID{}, "", unix.ENOENT
	}
	e := seq[0]
	if len(seq) > 1 {
		f.exes[pid] = seq[1:]
	}
	return e.id, e.path, e.err
}

func (f *fakeProc) readStat(pid int) (kernel.Stat, error) {
	st, ok := f.stats[pid]
	if !ok {
		return kernel.Stat{}, unix.ENOENT
	}
	return st, nil
}

var (
	idPython = kernel.FileID{Dev: 1, Ino: 10}
	idTrue   = kernel.FileID{Dev: 1, Ino: 20}
	idCurl   = kernel.FileID{Dev: 1, Ino: 30}
)

func execClaim(pid int, path string, expect kernel.FileID) *execSeen {
	e := &execSeen{tgid: pid, requested: path, argv: []string{path}, parent: "/usr/bin/python3.11", pre: idPython, expect: expect, comm: "python3"}
	e.runs = []verdict.ProgramRun{{Path: path, Role: verdict.RoleProgram, Argv: e.argv, Parent: e.parent, PID: pid, Count: 1}}
	return e
}

// TestProgramBookSettles runs the checks an exec gets afterwards, with a
// process table that answers as the kernel would in each case.
func TestProgramBookSettles(t *testing.T) {
	cases := []struct {
		name       string
		exec       *execSeen
		exes       []fakeExe
		stat       *kernel.Stat
		mismatch   string // a substring of the mismatch, "" for none
		unverified uint64
		unseen     int
		programs   []string
	}{
		{name: "ran what it named", exec: execClaim(7, "/usr/bin/true", idTrue),
			exes: []fakeExe{{id: idPython}, {id: idTrue, path: "/usr/bin/true"}}, programs: []string{"/usr/bin/true"}},
		{name: "raced to another program", exec: execClaim(7, "/usr/bin/true", idTrue),
			exes:     []fakeExe{{id: idCurl, path: "/usr/bin/curl"}},
			mismatch: "the exec named /usr/bin/true; the kernel ran /usr/bin/curl", programs: []string{"/usr/bin/curl", "/usr/bin/true"}},
		{name: "named a missing file and ran another", exec: &execSeen{tgid: 7, requested: "/nonexistent", pre: idPython},
			exes:     []fakeExe{{id: idCurl, path: "/usr/bin/curl"}},
			mismatch: "/nonexistent, which did not exist", programs: []string{"/usr/bin/curl"}},
		{name: "unreadable path, program seen afterwards", exec: &execSeen{tgid: 7, pre: idPython, readErr: errors.New("read: EPERM")},
			exes: []fakeExe{{id: idCurl, path: "/usr/bin/curl"}}, programs: []string{"/usr/bin/curl"}},
		{name: "unreadable path, never seen", exec: &execSeen{tgid: 7, pre: idPython, readErr: errors.New("read: EPERM")},
			unseen: 1, programs: []string{}},
		{name: "gone before the check", exec: execClaim(7, "/usr/bin/true", idTrue),
			unverified: 1, programs: []string{"/usr/bin/true"}},
		{name: "a zombie named after its exec", exec: execClaim(7, "/usr/bin/true", idTrue),
			stat: &kernel.Stat{State: 'Z', Comm: "true"}, programs: []string{"/usr/bin/true"}},
		{name: "a zombie still named as the caller", exec: execClaim(7, "/usr/bin/true", idTrue),
			stat: &kernel.Stat{State: 'Z', Comm: "python3"}, unverified: 1, programs: []string{"/usr/bin/true"}},
		// Closed to sysgate after the exec, open before: the exec ran a
		// program sysgate may not read, and it was gone before a read
		// could name it.
		{name: "unreadable after the exec until gone", exec: execClaim(7, "/proc/self/fd/100", idTrue),
			exes: []fakeExe{{err: unix.EACCES}, {err: unix.ENOENT}}, unseen: 1, programs: []string{"/proc/self/fd/100"}},
		// Named no file sysgate could open, yet the process took the
		// exec's name: it ran.
		{name: "unclaimed exec that ran", exec: &execSeen{tgid: 7, requested: "/tmp/link", pre: idPython, comm: "python3"},
			stat: &kernel.Stat{State: 'R', Comm: "link"}, unseen: 1, programs: []string{}},
		{name: "unclaimed exec that failed", exec: &execSeen{tgid: 7, requested: "/usr/local/bin/true", pre: idPython, comm: "python3"},
			stat: &kernel.Stat{State: 'R', Comm: "python3"}, programs: []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			proc := &fakeProc{exes: map[int][]fakeExe{}, stats: map[int]kernel.Stat{}}
			if c.exes != nil {
				proc.exes[7] = c.exes
			}
			if c.stat != nil {
				proc.stats[7] = *c.stat
			}
			b := newProgramBook()
			b.readExe, b.readStat, b.openPidfd = proc.readExe, proc.readStat, noPidfd
			b.exec(c.exec)
			b.close()
			checkBook(t, b, c.mismatch, c.unverified, c.unseen, c.programs)
		})
	}
}

// TestProgramBookNextExecSettles: a process's next exec checks its last
// one while the caller is stopped: still the caller's program means the
// last exec failed (a shell's PATH search); another program is a race.
func TestProgramBookNextExecSettles(t *testing.T) {
	proc := &fakeProc{exes: map[int][]fakeExe{7: {{id: idPython, err: unix.EACCES}}}}
	b := newProgramBook()
	b.readExe, b.readStat, b.openPidfd = proc.readExe, proc.readStat, noPidfd
	b.exec(&execSeen{tgid: 7, requested: "/usr/local/bin/true", pre: idPython}) // ENOENT in a PATH search
	proc.set(7, fakeExe{id: idPython, path: "/usr/bin/python3.11"})
	b.exec(execClaim(7, "/usr/bin/true", idTrue))
	proc.set(7, fakeExe{id: idCurl, path: "/usr/bin/curl"})
	third := execClaim(7, "/usr/bin/true", idTrue)
	third.pre = idCurl // the process's program is curl: the second exec raced
	b.exec(third)
	b.close()
	checkBook(t, b, "the kernel ran /usr/bin/curl", 0, 0, []string{"/usr/bin/curl", "/usr/bin/true"})
}

func checkBook(t *testing.T, b *programBook, mismatch string, unverified uint64, unseen int, programs []string) {
	t.Helper()
	switch {
	case mismatch == "" && len(b.mismatches) > 0:
		t.Errorf("mismatches = %v, want none", b.mismatches)
	case mismatch != "" && (len(b.mismatches) != 1 || !strings.Contains(b.mismatches[0].Mismatch, mismatch)):
		t.Errorf("mismatches = %v, want one saying %q", b.mismatches, mismatch)
	}
	if b.unverified != unverified {
		t.Errorf("unverified = %d, want %d", b.unverified, unverified)
	}
	if len(b.unseen) != unseen {
		t.Errorf("unseen = %q, want %d", b.unseen, unseen)
	}
	var got []string
	for _, p := range b.programs() {
		got = append(got, p.Path)
	}
	if strings.Join(got, ",") != strings.Join(programs, ",") {
		t.Errorf("programs = %q, want %q", got, programs)
	}
	if len(b.pending) != 0 {
		t.Errorf("%d execs still pending after close", len(b.pending))
	}
}

// TestProgramBookRefusesUnresolved: enforce refuses an exec it could not
// resolve, and the refusal is a violation naming the path, not silence.
func TestProgramBookRefusesUnresolved(t *testing.T) {
	b := newProgramBook()
	b.refuse(&execSeen{tgid: 7, requested: "/tmp/link", pre: idPython, readErr: kernel.ErrMagicLink})
	b.refuse(&execSeen{tgid: 7, requested: "/usr/local/bin/true", pre: idPython}) // missing: the kernel refuses it too
	if len(b.mismatches) != 1 || b.mismatches[0].Path != "/tmp/link" || !strings.Contains(b.mismatches[0].Mismatch, "refused") {
		t.Errorf("mismatches = %v, want one refusal of /tmp/link", b.mismatches)
	}
}

func noPidfd(int) (int, error) { return -1, unix.ESRCH }

// TestUnverifiedOutside: of the execs gone before /proc showed them, the
// result names those that named a program outside the baseline; the
// rest are only counted. Record mode learns programs: none is outside.
func TestUnverifiedOutside(t *testing.T) {
	doc, err := baseline.ParseDocument("b.yaml", []byte("version: 1\nprograms:\n  - /usr/bin/true\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := &baseline.Profile{Docs: []*baseline.Document{doc}}
	proc := &fakeProc{exes: map[int][]fakeExe{}, stats: map[int]kernel.Stat{}}
	b := newProgramBook()
	b.readExe, b.readStat, b.openPidfd = proc.readExe, proc.readStat, noPidfd
	b.exec(execClaim(7, "/usr/bin/true", idTrue))
	b.exec(execClaim(8, "/usr/bin/curl", idCurl))
	b.exec(execClaim(9, "/usr/bin/curl", idCurl))
	b.close()

	var r verdict.Result
	r.Observed = baseline.NewObservation("a")
	addPrograms(&r, b, p, baseline.ModeCheck)
	want := []verdict.UnverifiedExec{{Path: "/usr/bin/curl", Count: 2}}
	if r.UnverifiedExecs != 3 || !reflect.DeepEqual(r.UnverifiedOutside, want) {
		t.Errorf("check: %d unverified, outside %+v; want 3 and %+v", r.UnverifiedExecs, r.UnverifiedOutside, want)
	}
	var rec verdict.Result
	rec.Observed = baseline.NewObservation("a")
	addPrograms(&rec, b, p, baseline.ModeRecord)
	if rec.UnverifiedExecs != 3 || rec.UnverifiedOutside != nil {
		t.Errorf("record: %d unverified, outside %+v; want 3 and none", rec.UnverifiedExecs, rec.UnverifiedOutside)
	}
}
