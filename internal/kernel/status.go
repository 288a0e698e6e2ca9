package kernel

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// SeccompState is the seccomp part of /proc/N/status, with the bounding
// set: together they say whether a process carries a filter it cannot
// shed and which capabilities it can never regain.
type SeccompState struct {
	Mode       int // Seccomp: 0 off, 1 strict, 2 filter
	Filters    int // Seccomp_filters: how many filters it carries
	NoNewPrivs bool
	CapBnd     uint64
}

// ReadSeccompState reads /proc/pid/status.
func ReadSeccompState(pid int) (SeccompState, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	b, err := os.ReadFile(path)
	if err != nil {
		return SeccompState{}, err
	}
	st, err := parseSeccompState(b)
	if err != nil {
		return SeccompState{}, fmt.Errorf("read %s: %w", path, err)
	}
	return st, nil
}

// parseSeccompState needs every field: a status without one of them
// proves nothing about the process.
func parseSeccompState(status []byte) (SeccompState, error) {
	var st SeccompState
	const mode, filters, nnp, bnd = 1, 2, 4, 8
	found := 0
	for _, line := range bytes.Split(status, []byte("\n")) {
		key, val, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		v := string(bytes.TrimSpace(val))
		var err error
		switch string(key) {
		case "Seccomp":
			st.Mode, err = strconv.Atoi(v)
			found |= mode
		case "Seccomp_filters":
			st.Filters, err = strconv.Atoi(v)
			found |= filters
		case "NoNewPrivs":
			var n int
			n, err = strconv.Atoi(v)
			st.NoNewPrivs = n == 1
			found |= nnp
		case "CapBnd":
			st.CapBnd, err = strconv.ParseUint(v, 16, 64)
			found |= bnd
		}
		if err != nil {
			return SeccompState{}, fmt.Errorf("status %s: %q: %w", key, v, err)
		}
	}
	if found != mode|filters|nnp|bnd {
		return SeccompState{}, fmt.Errorf("status: no Seccomp, Seccomp_filters, NoNewPrivs or CapBnd line")
	}
	return st, nil
}

// ReadLoginUID returns /proc/pid/loginuid (4294967295: never set).
func ReadLoginUID(pid int) (uint32, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/loginuid")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("read /proc/%d/loginuid: %w", pid, err)
	}
	return uint32(v), nil
}

// BootTime returns the time since boot (CLOCK_BOOTTIME, which /proc start
// times count), in whole clock ticks: a process started after the call has
// a Stat.Start no earlier than it.
func BootTime() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return 0, os.NewSyscallError("clock_gettime(CLOCK_BOOTTIME)", err)
	}
	return time.Duration(ts.Nano()).Truncate(time.Second / userHZ), nil
}
