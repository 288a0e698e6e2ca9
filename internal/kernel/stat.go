package kernel

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of /proc/N/stat times; fixed at 100 by the Linux ABI.
const userHZ = 100

// Stat is what sysgate reads from /proc/N/stat.
type Stat struct {
	State byte   // 'R', 'S', 'Z', ...
	Comm  string // the thread group leader's name, as the kernel keeps it
	// StartTicks is the start time in clock ticks (1/100 s) since boot:
	// with the pid, it names a process across pid reuse.
	StartTicks uint64
}

// Start returns the start time since boot.
func (s Stat) Start() time.Duration { return time.Duration(s.StartTicks) * time.Second / userHZ }

// ReadStat reads and parses /proc/pid/stat.
func ReadStat(pid int) (Stat, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	b, err := os.ReadFile(path)
	if err != nil {
		return Stat{}, err
	}
	st, err := parseStat(b)
	if err != nil {
		return Stat{}, fmt.Errorf("read %s: %w", path, err)
	}
	return st, nil
}

// parseStat parses "pid (comm) S ppid ...". comm may hold spaces and
// parentheses (a process may name itself "a) b (c"), but the kernel
// writes nothing after it that holds ')', so it ends at the last one.
func parseStat(b []byte) (Stat, error) {
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return Stat{}, fmt.Errorf("malformed: no (comm)")
	}
	st := Stat{Comm: string(b[open+1 : closing])}
	// fields[0] is state (field 3); starttime is field 22, so fields[19].
	fields := bytes.Fields(b[closing+1:])
	if len(fields) < 20 {
		return Stat{}, fmt.Errorf("malformed: %d fields after comm", len(fields))
	}
	if len(fields[0]) != 1 {
		return Stat{}, fmt.Errorf("malformed: state %q", fields[0])
	}
	st.State = fields[0][0]
	ticks, err := strconv.ParseUint(string(fields[19]), 10, 64)
	if err != nil {
		return Stat{}, fmt.Errorf("malformed: starttime: %w", err)
	}
	st.StartTicks = ticks
	return st, nil
}
