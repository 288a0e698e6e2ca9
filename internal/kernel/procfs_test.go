package kernel

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestReadInfoOfSelf(t *testing.T) {
	info, err := ReadInfo(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	// The state is the main thread's: it may sleep while another runs.
	if info.Exe != exe || (info.State != 'R' && info.State != 'S') || info.Zombie() || info.Start <= 0 {
		t.Errorf("info %+v; want exe %s, running or sleeping", info, exe)
	}
	if lived := info.Lived(); lived <= 0 || lived > time.Hour {
		t.Errorf("lived %v", lived)
	}
	ses, err := SessionID()
	if err != nil || ses != info.Session {
		t.Errorf("thread session %d (%v), process session %d", ses, err, info.Session)
	}
}

func TestReadSessionOfMissingProcess(t *testing.T) {
	// pid_max is at most 2^22: this pid never exists.
	if _, err := ReadSession(1 << 23); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err %v; want not exist", err)
	}
}

func TestCandidatePaths(t *testing.T) {
	env := []string{"HOME=/root", "PATH=/a:/b/c::"}
	if got := CandidatePaths("tool", env); !slices.Equal(got, []string{"/a/tool", "/b/c/tool", "tool", "tool"}) {
		t.Errorf("got %q", got)
	}
	if got := CandidatePaths("./bin/tool", env); !slices.Equal(got, []string{"./bin/tool"}) {
		t.Errorf("got %q", got)
	}
	if got := CandidatePaths("sh", nil); !slices.Contains(got, "/bin/sh") {
		t.Errorf("default PATH: %q", got)
	}
}

func TestParseLastPID(t *testing.T) {
	if pid, err := parseLastPID([]byte("0.00 0.01 0.05 1/123 4567\n")); err != nil || pid != 4567 {
		t.Errorf("got %d, %v; want 4567", pid, err)
	}
	for _, bad := range []string{"", "0.00 0.01 0.05 1/123", "0.00 0.01 0.05 1/123 x", "0.00 0.01 0.05 1/123 -4"} {
		if _, err := parseLastPID([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestLastPIDMovesWithAFork(t *testing.T) {
	before, err := LastPID()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	after, err := LastPID()
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Errorf("last pid stayed %d across the start of pid %d", before, cmd.Process.Pid)
	}
}

// A process whose session cannot be read while the kernel says it exists
// and its /proc directory is hidden under a mount is not gone: the scan
// says so, and still lists the members it could read. One in the middle of
// its exit (unreadable, not hidden) is gone.
func TestScanSessionCountsUnreadableAsUnaccounted(t *testing.T) {
	const ses = 7
	sessions := map[int]uint32{1: 7, 2: 8, 4: 7}
	src := procSource{
		session: func(pid int) (uint32, error) {
			if s, ok := sessions[pid]; ok {
				return s, nil
			}
			return 0, &os.PathError{Op: "open", Path: "/proc/N/sessionid", Err: fs.ErrNotExist}
		},
		info:         func(pid int) (Info, error) { return Info{PID: pid, Session: sessions[pid], State: 'S'}, nil },
		exists:       func(pid int) bool { return pid != 5 }, // 3 is hidden, 5 is gone, 6 is exiting
		threadsAlive: func(int) bool { return false },
		hidden:       func(pid int) bool { return pid == 3 },
	}
	members, err := scanSession(ses, []int{1, 2, 3, 4, 5, 6}, src)
	var pids []int
	for _, m := range members {
		pids = append(pids, m.PID)
	}
	if !slices.Equal(pids, []int{1, 4}) {
		t.Errorf("members %v; want 1 and 4", pids)
	}
	var ue *UnaccountedError
	if !errors.Is(err, ErrUnaccounted) || !errors.As(err, &ue) || !slices.Equal(ue.PIDs, []int{3}) {
		t.Errorf("err %v; want pid 3 unaccounted", err)
	}
	delete(sessions, 1)
	sessions[3] = 8
	if _, err := scanSession(ses, []int{2, 3, 5}, src); err != nil {
		t.Errorf("every process read or gone: %v", err)
	}
}
