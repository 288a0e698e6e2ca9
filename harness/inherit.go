package harness

import (
	"os"
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
