package kernel

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// stopSignals are the signals whose default action stops a process:
// SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU, as bits of a /proc pending mask.
const stopSignals = 1<<(19-1) | 1<<(20-1) | 1<<(21-1) | 1<<(22-1)

// Stopped reports whether pid is stopped by a signal, or has a stop
// signal pending that it has not acted on yet (which a SIGCONT sent now
// would discard): from one read of /proc/pid/status, so a stop sent just
// before the read is seen either way.
func Stopped(pid int) (bool, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	stopped, err := parseStopped(b)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return stopped, nil
}

func parseStopped(status []byte) (bool, error) {
	found := 0
	stopped := false
	for _, line := range bytes.Split(status, []byte("\n")) {
		key, val, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		v := bytes.TrimSpace(val)
		switch string(key) {
		case "State":
			found++
			stopped = stopped || bytes.HasPrefix(v, []byte("T"))
		case "SigPnd", "ShdPnd":
			found++
			mask, err := strconv.ParseUint(string(v), 16, 64)
			if err != nil {
				return false, fmt.Errorf("status %s: %q: %w", key, v, err)
			}
			stopped = stopped || mask&stopSignals != 0
		}
	}
	if found != 3 {
		return false, fmt.Errorf("status: no State, SigPnd or ShdPnd line")
	}
	return stopped, nil
}
