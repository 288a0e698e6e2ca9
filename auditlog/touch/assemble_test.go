package touch

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// capturedLog reads testdata/agent.log: "# auid=A root=R", then "TYPE
// record" lines.
func capturedLog(t testing.TB) (auid uint32, root string, recs []rawRecord) {
	t.Helper()
	f, err := os.Open("testdata/agent.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# ") {
			if _, err := fmt.Sscanf(line, "# auid=%d root=%s", &auid, &root); err != nil {
				t.Fatal(err)
			}
			continue
		}
		typ, data, _ := strings.Cut(line, " ")
		n, err := strconv.ParseUint(typ, 10, 16)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		recs = append(recs, rawRecord{uint16(n), data})
	}
	return auid, root, recs
}

func assemble(t testing.TB, recs []rawRecord) []Event {
	t.Helper()
	var evs []Event
	a := NewAssembler(func(ev Event) { evs = append(evs, ev) })
	for _, r := range recs {
		if err := a.Push(r.Type, []byte(r.Data)); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	if a.Malformed() != 0 {
		t.Fatalf("%d malformed: %v", a.Malformed(), a.Err())
	}
	return evs
}

// accessesUnder lists the accesses of evs as "op syscall path" with root
// cut off, for paths under root (and unverified ones as "?").
func accessesUnder(evs []Event, root string) []string {
	var out []string
	for _, ev := range evs {
		for _, a := range ev.FileAccesses() {
			switch {
			case a.Unverified && a.Path == "":
				out = append(out, fmt.Sprintf("%s %s ? inode=%d", a.Op, a.Syscall, a.Item.Inode))
			case strings.HasPrefix(a.Path, root+"/"):
				out = append(out, fmt.Sprintf("%s %s %s", a.Op, a.Syscall, strings.TrimPrefix(a.Path, root+"/")))
			}
		}
	}
	return out
}

func TestAssembleCapturedAgent(t *testing.T) {
	auid, root, recs := capturedLog(t)
	evs := assemble(t, recs)
	for _, ev := range evs {
		if ev.AUID != auid {
			t.Errorf("event %d: auid %d, want %d", ev.Serial, ev.AUID, auid)
		}
	}
	got := accessesUnder(evs, root)
	want := []string{
		"read openat ws/in.txt",
		"write openat ws/out.txt",
		"delete rename ws/out.txt", "write rename ws/moved.txt",
		"read link ws/moved.txt", "write link ws/hard.txt",
		"write symlink ws/link",
		// open("link", O_CREAT) through the planted symlink created
		// outside/target.txt: the kernel recorded the target's inode but
		// no name, so the access cannot pass for ws/link.
		"write openat ? inode=" + strconv.FormatUint(unnamedCreate(t, evs), 10),
		"write openat ws/tmp.txt", "delete unlink ws/tmp.txt",
		"write mkdir ws/d", "delete rmdir ws/d",
		"write chmod ws/in.txt",
		"write bind ws/sock",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("accesses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var reopen, exec []string
	var addrs []string
	for _, ev := range evs {
		for _, a := range ev.FileAccesses() {
			if strings.HasPrefix(a.Path, "/proc/self/fd/") {
				reopen = append(reopen, a.Op.String())
			}
			if a.Op == Exec {
				exec = append(exec, a.Path)
			}
		}
		if ev.Addr != nil {
			addrs = append(addrs, fmt.Sprintf("%s %s %s %d %s", ev.Syscall, ev.Addr.Family, ev.Addr.Addr, ev.Addr.Port, strings.TrimPrefix(ev.Addr.Path, root+"/")))
		}
	}
	// O_PATH is no access; its reopen through /proc/self/fd with "a" is.
	if strings.Join(reopen, ",") != "write" {
		t.Errorf("/proc/self/fd reopen: %q, want one write", reopen)
	}
	if !slices.Contains(exec, "/bin/true") || !slices.Contains(exec, "/lib64/ld-linux-x86-64.so.2") {
		t.Errorf("execs %q: want /bin/true and its loader", exec)
	}
	if len(addrs) != 4 || !strings.HasPrefix(addrs[0], "bind inet 127.0.0.1 0") || !strings.HasPrefix(addrs[1], "connect inet 127.0.0.1 ") ||
		addrs[2] != "sendto inet6 ::1 9 " || addrs[3] != "bind unix invalid IP 0 ws/sock" {
		t.Errorf("addresses:\n%s", strings.Join(addrs, "\n"))
	}
}

// unnamedCreate returns the inode of the open that created a file
// through a symlink: its last item is a CREATE without a name.
func unnamedCreate(t *testing.T, evs []Event) uint64 {
	t.Helper()
	for _, ev := range evs {
		if n := len(ev.Paths); n > 0 && ev.Paths[n-1].NameType == "CREATE" && ev.Paths[n-1].Name == "" {
			return ev.Paths[n-1].Inode
		}
	}
	t.Fatal("no open through the symlink")
	return 0
}
