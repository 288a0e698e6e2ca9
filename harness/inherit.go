package harness

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// extraFds maps Agent.ExtraFiles to the launcher's kept descriptors: entry
// i becomes the agent's fd 3+i, nil stays closed.
func extraFds(files []*os.File) []int {
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = -1
		if f != nil {
			fds[i] = int(f.Fd())
		}
	}
	return fds
}

// isTerminal reports whether the agent's stdin is a terminal: only then
// does it keep the caller's session and controlling terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
