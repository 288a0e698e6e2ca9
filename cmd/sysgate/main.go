// Command sysgate runs AI agents and their tools under a seccomp baseline
// and fails CI when they make a syscall outside it. See README.md.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

func main() {
	// A closed stdout or stderr (sysgate record ... | head -1) must not
	// kill sysgate mid-write: writes fail with EPIPE instead, and every
	// file is written before anything is printed.
	signal.Ignore(syscall.SIGPIPE)
	c := &cli.Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(c.Main(os.Args))
}
