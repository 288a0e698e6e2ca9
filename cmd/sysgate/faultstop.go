//go:build sysgate_faults

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
)

// A fault build (go build -tags sysgate_faults, only the fault suite
// makes one) stops at the auditctl.Stage that SYSGATE_FAULT_STOP names,
// says so on stderr and waits there to be killed: the crash specs SIGKILL
// a run at each stage of the kernel settings it holds.
func init() {
	want := os.Getenv("SYSGATE_FAULT_STOP")
	if want == "" {
		return
	}
	auditctltest.OnStage(func(s auditctl.Stage) {
		if string(s) != want {
			return
		}
		fmt.Fprintf(os.Stderr, "sysgate: stopped at %s\n", s)
		for {
			_ = unix.Pause()
		}
	})
}
