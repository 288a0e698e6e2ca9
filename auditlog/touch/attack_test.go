package touch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestObservedAttack runs testdata/attack.py under rules for a fresh
// auid and checks the file accesses reported, resolved after the agent
// exited (root "/").
func TestObservedAttack(t *testing.T) {
	o := observeAgentWith(t, "testdata/attack.py", func(outside string) {
		for _, f := range []string{"target.txt", "bashrc", "secret"} {
			if err := os.WriteFile(filepath.Join(outside, f), []byte(f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	evs := assemble(t, o.records)
	if len(o.events) != len(evs) || len(evs) == 0 {
		t.Fatalf("Observe delivered %d events, the raw records assemble to %d", len(o.events), len(evs))
	}
	evs = o.events

	root := filepath.Dir(o.workspace)
	var got []string
	for _, ev := range evs {
		if ev.AUID != o.auid {
			t.Errorf("event %d of auid %d", ev.Serial, ev.AUID)
		}
		for _, a := range ev.ResolvedAccesses(RootOf(ev.PID)) {
			p, under := strings.CutPrefix(a.Path, root+"/")
			if !under && !strings.HasPrefix(a.Path, "/proc/") && !a.Unverified {
				continue // the interpreter's own files
			}
			mark := ""
			if a.Unverified {
				mark = " (unverified)"
			}
			got = append(got, fmt.Sprintf("%s %s %s%s", a.Op, a.Syscall, p, mark))
		}
	}
	want := []string{
		"read openat ws/in.txt",
		"write symlink ws/link",
		// The kernel recorded "link" with target.txt's inode; the link
		// is gone, so the name cannot be tied to the file: a candidate.
		"write openat ws/link (unverified)",
		"delete unlink ws/link",
		"write symlink ws/link2",
		"write openat outside/target.txt", // through ws/link2, still there
		"write openat ws/tmp.txt", "delete unlink ws/tmp.txt",
		"write openat ws/a",
		"delete rename ws/a", "write rename outside/bashrc",
		"read link outside/secret", "write link ws/hard",
		"write openat ws/sp ace\n.txt", // hex in the record, decoded
		"read name_to_handle_at outside/secret",
		// The handle's open records the inode but no name: reported,
		// unverified, so the run cannot pass clean on it.
		"read open_by_handle_at  (unverified)",
	}
	// The reopen through /proc/self/fd: after the agent exited its
	// descriptor is gone, so it is reported by name, unverified.
	reopen := slices.IndexFunc(got, func(s string) bool { return strings.HasPrefix(s, "write openat /proc/self/fd/") })
	if reopen < 0 || !strings.HasSuffix(got[reopen], "(unverified)") {
		t.Errorf("no unverified write through /proc/self/fd in:\n%s", strings.Join(got, "\n"))
	} else {
		got = slices.Delete(got, reopen, reopen+1)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("accesses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Network calls are recorded whatever they returned: the refused
	// connect had its SYN sent.
	var connects []Event
	for _, ev := range evs {
		if ev.Syscall == "connect" {
			connects = append(connects, ev)
		}
	}
	if len(connects) != 1 || !connects[0].Failed || connects[0].Errno != int(unix.ECONNREFUSED) ||
		connects[0].Addr == nil || connects[0].Addr.Port != 9 || connects[0].Addr.Addr.String() != "127.0.0.1" {
		t.Errorf("the refused connect: %+v, want one, failed with ECONNREFUSED, to 127.0.0.1:9", connects)
	}
}

// TestObservedFlippedPathBuffer: whatever the buffer held when the
// kernel copied it, the records name the file opened: every read of the
// key is reported as such, as often as the agent reached it.
func TestObservedFlippedPathBuffer(t *testing.T) {
	o := observeAgentWith(t, "testdata/flip.py", func(outside string) {
		if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("k"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	hits, err := strconv.Atoi(strings.TrimSpace(o.stdout))
	if err != nil {
		t.Fatalf("agent said %q", o.stdout)
	}
	key := filepath.Join(o.outside, "secret")
	reads, mine, other := 0, 0, 0
	for _, ev := range o.events {
		for _, a := range ev.ResolvedAccesses(RootOf(ev.PID)) {
			switch {
			case a.Syscall != "open" && a.Syscall != "openat" || a.Op != Read:
			case a.Unverified:
				other++
				t.Errorf("unverified read %q", a.Path)
			case a.Path == key:
				reads++
			case strings.HasPrefix(a.Path, o.workspace+"/fff"):
				mine++
			}
		}
	}
	t.Logf("the agent reached the key %d times of 2000; reported reads: key %d, workspace file %d", hits, reads, mine)
	if reads != hits || reads+mine != 2000 || other != 0 {
		t.Errorf("reported %d reads of the key and %d of the workspace file, the agent reached the key %d times of 2000", reads, mine, hits)
	}
}

// TestObservedRmtree: a descriptor-relative walker (shutil.rmtree) that
// deleted everything before anyone looked: what the kernel placed by the
// CWD is verified by its directory, the rest stays unverified (the run
// is inconclusive, never clean), and nothing is reported under a wrong
// name (the kernel logs the CWD as the parent of every unlinkat).
func TestObservedRmtree(t *testing.T) {
	o := observeAgent(t, "testdata/rmtree.py")
	var got []string
	for _, ev := range o.events {
		for _, a := range ev.ResolvedAccesses(RootOf(ev.PID)) {
			p, under := strings.CutPrefix(a.Path, o.workspace+"/")
			if !under && !a.Unverified {
				continue
			}
			mark := ""
			if a.Unverified {
				mark = " (unverified)"
			}
			got = append(got, fmt.Sprintf("%s %s %s%s", a.Op, a.Syscall, p, mark))
		}
	}
	want := []string{
		"write mkdir tree",
		"write mkdir tree/sub (unverified)",
		"write openat tree/a (unverified)", "write openat tree/sub/b (unverified)",
		"read openat tree (unverified)",
		"read openat  (unverified)", // openat(fd of tree, "sub")
		"delete unlinkat  (unverified)", "delete unlinkat  (unverified)", "delete unlinkat  (unverified)",
		"delete rmdir tree",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("accesses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// placedByDirs runs the observed events through Dirs as the harness
// does: the resolver first, the descriptor's candidate, then Place once
// every record is in. It returns "op syscall path" per access under the
// workspace or not placed.
func placedByDirs(o observed) []string {
	d := NewDirs()
	type hold struct {
		a Access
		h Held
	}
	var held []hold
	var got []string
	for _, ev := range o.events {
		acc := ev.ResolvedAccesses(RootOf(ev.PID))
		for i, a := range acc {
			if a.Unverified && a.Item.Relative() {
				if p, ok := ev.ResolveCandidate("/", d.Candidate(ev, a.Item), a.Item); ok {
					acc[i].Path, acc[i].Unverified = p, false
				}
			}
		}
		d.Note(ev, acc)
		for _, a := range acc {
			switch {
			case a.Unverified && a.Item.Relative():
				held = append(held, hold{a, d.Hold(ev, a)})
			case strings.HasPrefix(a.Path, o.workspace+"/") || a.Unverified:
				got = append(got, fmt.Sprintf("%s %s %s", a.Op, a.Syscall, strings.TrimPrefix(a.Path, o.workspace+"/")))
			}
		}
	}
	for _, h := range held {
		p, ok, why := d.Place(h.h)
		if !ok {
			p = "unplaced: " + h.h.Desc + ": " + why
		}
		got = append(got, fmt.Sprintf("%s %s %s", h.a.Op, h.a.Syscall, strings.TrimPrefix(p, o.workspace+"/")))
	}
	return got
}

// shutil.rmtree's names relative to descriptors are placed from the
// run's records: every access under the name the tree had, none left
// unverified (the directory listing's order is the file system's).
func TestObservedRmtreePlacedByDirs(t *testing.T) {
	got := placedByDirs(observeAgent(t, "testdata/rmtree.py"))
	want := []string{
		"write mkdir tree", "write mkdir tree/sub",
		"write openat tree/a", "write openat tree/sub/b",
		"read openat tree", "read openat tree/sub",
		"delete unlinkat tree/a", "delete unlinkat tree/sub/b", "delete unlinkat tree/sub",
		"delete rmdir tree",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("accesses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A directory renamed between its open and a use through the
// descriptor: the use is placed by neither name, and the report names
// the call, the descriptor, the directory's inode and the rename.
func TestObservedDirfdAfterRenameUnplaced(t *testing.T) {
	got := placedByDirs(observeAgent(t, "testdata/dirfdrename.py"))
	last := got[len(got)-1]
	if !strings.HasPrefix(last, `delete unlinkat unplaced: unlinkat "f" relative to descriptor `) || !strings.Contains(last, "(directory inode ") ||
		!strings.Contains(last, `the run renamed a directory (rename "`) {
		t.Errorf("the use after the rename: %q", last)
	}
	for _, g := range got[:len(got)-1] {
		if strings.Contains(g, "unlinkat") {
			t.Errorf("placed after the rename: %q", g)
		}
	}
}
