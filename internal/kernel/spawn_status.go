package kernel

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNotSupported is matched by the errors of Spawn and the namespace
// probes where sysgate was built without the launcher: it is C, and needs
// Linux and cgo.
var ErrNotSupported = errors.New("the agent launcher needs Linux and cgo")

// SpawnStatus is one record the child writes on the status fd.
type SpawnStatus struct {
	Kind  int32 // StatusSession, StatusError, StatusAgent or StatusExit
	Step  int32 // which step failed
	Errno int32 // StatusExit: the agent's wait status
	Ses   uint32
	// Paths are the files the failed step worked on, for a step that
	// names them (BindFiles: source and target).
	Paths []string
}

// statusRecord is a status record as the child writes it; an error
// record's paths follow it in the same message.
type statusRecord struct {
	Kind, Step, Errno int32
	Ses               uint32
}

// Status kinds, as spawn.h numbers them (spawn.go checks that they agree
// when it builds).
const (
	StatusSession = 1
	StatusError   = 2
	StatusAgent   = 3 // with PidNamespace: the agent exec'd; its pidfd attached
	StatusExit    = 4 // with PidNamespace: the agent was reaped; Err holds its wait status
	// StatusListener (Notify): the agent's filter is loaded; its listener
	// is attached.
	StatusListener = 5
)

// statusPathsMax bounds the paths of an error record
// (SYSGATE_STATUS_PATHS_MAX).
const statusPathsMax = 8192

// StepFindAgent names the step that looks for the agent's command in its
// $PATH: an *os.SyscallError of that name, ENOENT, is a command that does
// not exist (a misspelt name), which the CLI reports as bad input.
const StepFindAgent = "find agent"

// ReadSpawnStatus reads one record from the status socket; io.EOF when
// the child exec'd (or died) without another report. A session record of
// a child spawned with a listener carries the listener fd (close-on-exec),
// which the caller then owns; -1 otherwise.
func ReadSpawnStatus(status int) (st SpawnStatus, listenerFd int, err error) {
	var rec statusRecord
	size := binary.Size(rec)
	buf := make([]byte, size+statusPathsMax)
	oob := make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	for {
		n, oobn, _, _, err = unix.Recvmsg(status, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return st, -1, os.NewSyscallError("recvmsg", err)
	}
	listenerFd = -1
	if oobn > 0 {
		msgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
		for _, m := range msgs {
			if fds, err := unix.ParseUnixRights(&m); err == nil {
				for _, fd := range fds {
					if listenerFd < 0 {
						listenerFd = fd
					} else {
						unix.Close(fd)
					}
				}
			}
		}
		if perr != nil {
			err = os.NewSyscallError("recvmsg", perr)
		}
	}
	if n < size {
		if listenerFd >= 0 {
			unix.Close(listenerFd)
		}
		return st, -1, io.EOF
	}
	if _, derr := binary.Decode(buf[:size], binary.NativeEndian, &rec); derr != nil {
		err = derr
	}
	st = SpawnStatus{Kind: rec.Kind, Step: rec.Step, Errno: rec.Errno, Ses: rec.Ses}
	if rest := buf[size:n]; len(rest) > 0 {
		st.Paths = strings.Split(strings.TrimSuffix(string(rest), "\x00"), "\x00")
	}
	return st, listenerFd, err
}

// StatusSocket returns the two ends of a status channel for Spawn: the
// parent reads records (and the listener fd) from the first; the second
// is Status. Both are close-on-exec.
func StatusSocket() (parent, child int, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, os.NewSyscallError("socketpair", err)
	}
	return fds[0], fds[1], nil
}
