package kernel

import (
	"os"
	"strconv"
	"strings"
)

// SetLoginUID writes uid to /proc/thread-self/loginuid. Setting a login uid
// gives the calling thread a fresh audit session id, which every process it
// later forks or execs inherits. It needs CAP_AUDIT_CONTROL when the login
// uid is already set.
func SetLoginUID(uid uint32) error {
	return writeThreadFile("loginuid", strconv.FormatUint(uint64(uid), 10))
}

// SessionID returns the calling thread's audit session id.
func SessionID() (uint32, error) {
	b, err := os.ReadFile("/proc/thread-self/sessionid")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return 0, &os.PathError{Op: "parse", Path: "/proc/thread-self/sessionid", Err: err}
	}
	return uint32(v), nil
}

// UnsetSession is the session id of a task that never set a login uid.
const UnsetSession = ^uint32(0)

func writeThreadFile(name, value string) error {
	// One write(2) of the whole value: the kernel parses it at once.
	f, err := os.OpenFile("/proc/thread-self/"+name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write([]byte(value))
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}
