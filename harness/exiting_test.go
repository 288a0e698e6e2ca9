package harness

import (
	"context"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// A program that ran and exited before the watcher looked is verified at
// its exit_group, while /proc still shows it: gone afterwards, it is not
// counted unverified.
func TestExitingSettlesAPendingExec(t *testing.T) {
	proc := &fakeProc{exes: map[int][]fakeExe{}, stats: map[int]kernel.Stat{}}
	// The watcher's looks all see the caller's program, then nothing.
	proc.set(7, fakeExe{id: idPython, path: "/usr/bin/python3.11"})
	b := newProgramBook()
	b.readExe, b.readStat, b.openPidfd = proc.readExe, proc.readStat, noPidfd
	b.exec(execClaim(7, "/usr/bin/true", idTrue))
	proc.set(7, fakeExe{id: idTrue, path: "/usr/bin/true"}) // after the exec, in its exit_group
	b.exiting(7)
	proc.set(7)
	b.close()
	if b.unverified != 0 {
		t.Errorf("%d unverified; want the exec settled at its exit", b.unverified)
	}
}

// Short programs on the audit backend: 7 of 600 execs of /bin/true and
// uname were "unverified" (run, exited and reaped between two looks of
// the watcher) before exit_group went to the listener (issue 46, item 7).
func TestShortExecsAreVerified(t *testing.T) {
	testutil.RequireAudit(t)
	for i := range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r, err := Run(ctx, Agent{Command: []string{"sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; uname -m >/dev/null; done"}},
			WithBackend(verdict.BackendAudit), WithMode(baseline.ModeRecord))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.UnverifiedExecs != 0 {
			t.Fatalf("run %d: %d of 41 execs unverified (%+v)", i, r.UnverifiedExecs, r.UnverifiedOutside)
		}
	}
}
