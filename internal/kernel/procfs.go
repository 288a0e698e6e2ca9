package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

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
	st, err := ReadStat(pid)
	if err != nil {
		return info, err
	}
	info.State, info.Comm, info.Start = st.State, st.Comm, st.Start()
	info.Exe, _ = os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return info, nil
}

// ErrUnaccounted is matched (errors.Is) by SessionMembers' error when a
// live process's session could not be read: it may belong to the session
// (a process can hide its /proc directory under a mount), so a scan with
// one says nothing about the session being empty.
var ErrUnaccounted = errors.New("audit session unreadable")

// UnaccountedError names the live processes whose session could not be
// read in a scan.
type UnaccountedError struct {
	PIDs []int
	Err  error // the first read's error
}

func (e *UnaccountedError) Error() string {
	return fmt.Sprintf("%v of live pids %v: %v", ErrUnaccounted, e.PIDs, e.Err)
}

func (e *UnaccountedError) Is(target error) bool { return target == ErrUnaccounted }

// SessionMembers lists the live (not zombie) processes whose audit session
// id is ses. Processes that exit during the scan are left out. A live
// process whose session cannot be read is not left out silently: the
// members found are returned with an *UnaccountedError.
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
	var pids []int
	for _, name := range names {
		if pid, err := strconv.Atoi(name); err == nil {
			pids = append(pids, pid)
		}
	}
	return scanSession(ses, pids, procSource{ReadSession, ReadInfo, processExists, threadsAlive, procHidden})
}

// procSource is what a session scan reads, apart so that a test can make
// a read fail.
type procSource struct {
	session      func(pid int) (uint32, error)
	info         func(pid int) (Info, error)
	exists       func(pid int) bool // asked of the kernel, not of /proc
	threadsAlive func(pid int) bool
	// hidden: something is mounted over /proc/<pid>. A process in the
	// middle of its exit also fails the read while kill(pid, 0) still
	// finds it; its directory is then missing or still procfs's.
	hidden func(pid int) bool
}

func scanSession(ses uint32, pids []int, src procSource) ([]Info, error) {
	var members []Info
	var unaccounted *UnaccountedError
	for _, pid := range pids {
		s, err := src.session(pid)
		if err != nil && src.exists(pid) {
			// Gone and its pid reused between the listing and the
			// read, or hidden: read once more before calling it hidden.
			s, err = src.session(pid)
		}
		if err != nil {
			if src.exists(pid) && src.hidden(pid) {
				if unaccounted == nil {
					unaccounted = &UnaccountedError{Err: err}
				}
				unaccounted.PIDs = append(unaccounted.PIDs, pid)
			}
			continue
		}
		if s != ses {
			continue
		}
		info, err := src.info(pid)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ESRCH) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !info.Zombie() || src.threadsAlive(pid) {
			members = append(members, info)
		}
	}
	if unaccounted != nil {
		return members, unaccounted
	}
	return members, nil
}

// procHidden reports whether /proc/<pid> is on another file system than
// /proc: a mount covers it.
func procHidden(pid int) bool {
	var proc, dir unix.Stat_t
	if unix.Stat("/proc", &proc) != nil || unix.Stat("/proc/"+strconv.Itoa(pid), &dir) != nil {
		return false
	}
	return proc.Dev != dir.Dev
}

// processExists asks the kernel whether pid names a process (a zombie
// too), without /proc.
func processExists(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
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

// LoadAvg returns /proc/loadavg as the kernel writes it ("0.00 0.01 0.05
// 1/123 4567"), for reports.
func LoadAvg() (string, error) {
	b, err := os.ReadFile("/proc/loadavg")
	return string(bytes.TrimSpace(b)), err
}

// PeakRSS returns pid's peak resident set size in KiB (VmHWM in
// /proc/pid/status). It belongs to the current executable image alone:
// an exec resets it.
func PeakRSS(pid int) (kib int, err error) {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return parsePeakRSS(b)
}

func parsePeakRSS(status []byte) (int, error) {
	for _, line := range bytes.Split(status, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 2 && string(f[1]) == "kB" {
				return strconv.Atoi(string(f[0]))
			}
			return 0, fmt.Errorf("read status: VmHWM %q", rest)
		}
	}
	return 0, fmt.Errorf("read status: no VmHWM (a kernel thread?)")
}

// AuditMulticastSockets counts the NETLINK_AUDIT sockets on the machine
// that joined a multicast group (/proc/net/netlink: protocol 9, non-zero
// groups): every logged record is copied to each of them.
func AuditMulticastSockets() (int, error) {
	b, err := os.ReadFile("/proc/net/netlink")
	if err != nil {
		return 0, err
	}
	return countAuditMulticast(b), nil
}

func countAuditMulticast(table []byte) int {
	n := 0
	lines := bytes.Split(table, []byte("\n"))
	for _, line := range lines[min(1, len(lines)):] { // the first is the header
		f := bytes.Fields(line)
		if len(f) > 3 && string(f[1]) == "9" && len(bytes.Trim(f[3], "0")) > 0 {
			n++
		}
	}
	return n
}
