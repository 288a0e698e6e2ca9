package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// userHZ is the unit of /proc/N/stat times; fixed at 100 by the Linux ABI.
const userHZ = 100

// Info is what /proc says about one process.
type Info struct {
	PID     int
	Session uint32
	State   byte // 'R', 'S', 'Z', ...
	Comm    string
	Exe     string        // "" when unreadable (kernel thread, exited)
	Start   time.Duration // since boot
}

// Zombie reports whether the process has exited and awaits reaping.
func (i Info) Zombie() bool { return i.State == 'Z' || i.State == 'X' }

// Lived returns how long the process has existed so far.
func (i Info) Lived() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0
	}
	return max(0, time.Duration(ts.Nano())-i.Start)
}

// ReadSession returns /proc/pid/sessionid. It is called for every process
// on the machine several times per run, so it makes just open, read and
// close: os.ReadFile would add fstat, a second read and poller calls.
func ReadSession(pid int) (uint32, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/sessionid"
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var buf [16]byte
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil {
		return 0, &os.PathError{Op: "read", Path: path, Err: err}
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(buf[:max(n, 0)])), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	return uint32(v), nil
}

// ReadInfo reads pid's session, state, comm, exe and start time.
func ReadInfo(pid int) (Info, error) {
	info := Info{PID: pid}
	ses, err := ReadSession(pid)
	if err != nil {
		return info, err
	}
	info.Session = ses
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return info, err
	}
	// "pid (comm) S ppid ..." where comm may hold spaces and parentheses.
	open, closing := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || closing < open {
		return info, fmt.Errorf("read /proc/%d/stat: malformed", pid)
	}
	info.Comm = string(stat[open+1 : closing])
	fields := strings.Fields(string(stat[closing+1:]))
	// fields[0] is state (field 3); starttime is field 22, so fields[19].
	if len(fields) < 20 {
		return info, fmt.Errorf("read /proc/%d/stat: %d fields", pid, len(fields))
	}
	info.State = fields[0][0]
	ticks, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return info, fmt.Errorf("read /proc/%d/stat: starttime: %w", pid, err)
	}
	info.Start = time.Duration(ticks) * time.Second / userHZ
	info.Exe, _ = os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return info, nil
}

// SessionMembers lists the live (not zombie) processes whose audit session
// id is ses. Processes that exit during the scan are left out.
func SessionMembers(ses uint32) ([]Info, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("scan /proc: %w", err)
	}
	var members []Info
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		s, err := ReadSession(pid)
		if err != nil || s != ses {
			continue
		}
		info, err := ReadInfo(pid)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ESRCH) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !info.Zombie() || threadsAlive(pid) {
			members = append(members, info)
		}
	}
	return members, nil
}

// threadsAlive reports whether a zombie thread-group leader still has
// running threads (its main thread called pthread_exit): then the process
// is not gone.
func threadsAlive(pid int) bool {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	return err == nil && len(tasks) > 1
}

// LastPID returns the pid most recently allocated in this pid namespace
// (the last field of /proc/loadavg). A process created anywhere below it,
// in a child pid namespace too, moves it: two equal readings around a scan
// of /proc mean no process was created during the scan.
func LastPID() (int, error) {
	fd, err := unix.Open("/proc/loadavg", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, &os.PathError{Op: "open", Path: "/proc/loadavg", Err: err}
	}
	var buf [128]byte
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil {
		return 0, &os.PathError{Op: "read", Path: "/proc/loadavg", Err: err}
	}
	return parseLastPID(buf[:max(n, 0)])
}

func parseLastPID(b []byte) (int, error) {
	f := bytes.Fields(b)
	if len(f) != 5 {
		return 0, fmt.Errorf("/proc/loadavg: unexpected %q", b)
	}
	pid, err := strconv.Atoi(string(f[4]))
	if err != nil || pid < 0 {
		return 0, fmt.Errorf("/proc/loadavg: unexpected last pid %q", f[4])
	}
	return pid, nil
}
