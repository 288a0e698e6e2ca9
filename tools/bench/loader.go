package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/runenv"
)

// loaderArg makes this binary load a check-mode filter compiled from a
// baseline and exec a command under it, without the harness:
//
//	bench -exec-filtered linear|tree BASELINE -- CMD [ARGS...]
//	bench -exec-filtered log-all - -- CMD [ARGS...]
//
// so the linear and binary-tree filters are compared with nothing else
// different; log-all is record mode's filter (every syscall logged), for
// the drain-only floor.
const loaderArg = "-exec-filtered"

const logAll = "log-all"

func loaderPrefix(order, baselinePath string) []string {
	return []string{self(), loaderArg, order, baselinePath, "--"}
}

// execFiltered never returns on success.
func execFiltered(args []string) error {
	if len(args) < 4 || args[2] != "--" {
		return fmt.Errorf("usage: %s linear|tree|log-all BASELINE -- CMD [ARGS...]", loaderArg)
	}
	order, path, command := args[0], args[1], args[3:]
	var f *compile.Filter
	var err error
	if order == logAll {
		// Record mode's filter without a listener: every syscall logged
		// (argument classes off, so nothing is sent to a listener).
		f, err = compile.Compile(nil, baseline.ModeRecord, compile.Options{ArgBlind: true})
	} else {
		var p *baseline.Profile
		if p, err = baseline.LoadStackFor(hostSelector(), path); err != nil {
			return err
		}
		// Without Options.Programs, which harness.Run sets: its
		// exec rule hands every execve to the run's listener, and this
		// process has none to answer its own (the programs section
		// counts what the rule changes for a loop's syscall).
		f, err = compile.Compile(p, baseline.ModeCheck, compile.Options{Linear: order == "linear"})
	}
	if err != nil {
		return err
	}
	exe, err := exec.LookPath(command[0])
	if err != nil {
		return err
	}
	env := os.Environ()
	// The filter goes on this thread only, right before execve replaces
	// the process with this thread alone.
	runtime.LockOSThread()
	if err := kernel.SetNoNewPrivs(); err != nil {
		return err
	}
	if err := kernel.LoadSeccompFilter(f.Program, 0); err != nil {
		return err
	}
	return syscall.Exec(exe, command, env)
}

// hostSelector picks the suites' runtime layers for this machine.
func hostSelector() baseline.Selector { return runenv.HostSelector(os.Environ()) }
