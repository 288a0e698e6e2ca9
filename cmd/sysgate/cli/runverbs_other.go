//go:build !linux

package cli

import "runtime"

// The verbs that run an agent need Linux's seccomp, audit and pidfds.
// Elsewhere (a reviewer's Mac) sysgate still validates, formats, diffs,
// exports and reports baselines; these say what they need instead.
func init() {
	for verb, summary := range map[string]string{
		"record":     "run an agent with every syscall logged and write its baseline file (Linux only)",
		"check":      "run an agent against baseline files (Linux only)",
		"enforce":    "run an agent with everything outside the baselines denied (Linux only)",
		"doctor":     "check that this machine can observe the syscalls of a run (Linux only)",
		"audit tail": "stream seccomp audit events live (Linux only)",
	} {
		register(verb, summary, func(c *Command, _ []string) int {
			return c.errorf(ExitInconclusive, "%s needs Linux (seccomp, audit or user notification, pidfds); this is %s: "+
				"run it on a Linux machine or CI runner. validate, fmt, baseline diff, export, report and compare work here.", verb, runtime.GOOS)
		})
	}
}
