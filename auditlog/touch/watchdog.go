package touch

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/sysgate/sysgate/auditlog/auditctl"
)

// A binary that links this package becomes the rule watchdog when it is
// started with argv[0] watchdogArg0 (by Install): it never reaches main.
func init() {
	if len(os.Args) == 3 && os.Args[0] == watchdogArg0 {
		os.Exit(watchdog(os.Args[1], os.Args[2]))
	}
}

func watchdog(pidArg, startArg string) int {
	pid, err1 := strconv.Atoi(pidArg)
	start, err2 := strconv.ParseUint(startArg, 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "sysgate audit rule watchdog: bad owner", pidArg, startArg)
		return 2
	}
	// The terminal's signals are for the owner; the watchdog outlives it.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGPIPE)
	pipe := os.NewFile(3, "owner")
	var b [1]byte
	for {
		n, err := pipe.Read(b[:])
		if n == 1 && b[0] == releasedByte {
			return 0
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != syscall.EINTR {
			fmt.Fprintln(os.Stderr, "sysgate audit rule watchdog:", err)
			break
		}
	}
	// End of file without the released byte: every thread of the owner
	// has closed its descriptors, so it will touch nothing again.
	if err := auditctl.RecoverOwner(auditctl.Owner{PID: pid, Start: start}); err != nil {
		fmt.Fprintf(os.Stderr, "sysgate audit rule watchdog (owner pid %d died): %v\n", pid, err)
		return 1
	}
	return 0
}
