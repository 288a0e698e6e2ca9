// Command sysgate runs AI agents and their tools under a seccomp baseline
// and fails CI when they make a syscall outside it. See README.md.
package main

import (
	"os"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

func main() {
	c := &cli.Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(c.Main(os.Args))
}
