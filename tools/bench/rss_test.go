package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/sysgate/sysgate/internal/kernel"
)

// ballast makes this process's own RSS large, so a peak-RSS reading that
// counted it (rusage's ru_maxrss does, through os/exec's CLONE_VM) shows.
var ballast []byte

func TestPeakRSSIsTheChildsOwn(t *testing.T) {
	ballast = make([]byte, 128<<20)
	for i := range ballast {
		if i%4096 == 0 {
			ballast[i] = 1
		}
	}
	own, err := kernel.PeakRSS(os.Getpid())
	if err != nil || own < 128<<10 {
		t.Fatalf("own VmHWM %d KiB, %v: the ballast is not resident", own, err)
	}
	// A shell loop: long enough to be sampled, small in memory.
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done")
	kib, err := runPeakRSS(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if kib <= 0 || kib > 32<<10 {
		t.Errorf("peak RSS of sh %d KiB (this process: %d KiB); want the shell's own few MiB", kib, own)
	}
}
