package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sysgate/sysgate/auditlog/preflight"
	"github.com/sysgate/sysgate/ci"
)

func init() {
	register("doctor", "check that this machine can observe the syscalls of a run (audit, seccomp LOG, privileges, namespaces)", (*Command).runDoctor)
}

// runPreflight is preflight.Run, replaceable in tests.
var runPreflight = preflight.Run

func (c *Command) runDoctor(args []string) int {
	fs := c.flagSet("doctor", "")
	format := fs.String("format", "text", "output: text or json")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.errorf(ExitUsage, "doctor takes no arguments")
	}
	report, err := runPreflight()
	switch *format {
	case "text":
		writeDoctorText(c.Stdout, report)
	case "json":
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		if encErr := enc.Encode(report); encErr != nil {
			return c.errorf(ExitInconclusive, "doctor: %v", encErr)
		}
	default:
		return c.errorf(ExitUsage, "--format %q: want text or json", *format)
	}
	if err != nil {
		return ExitInconclusive
	}
	return ExitOK
}

func writeDoctorText(w io.Writer, r *preflight.Report) {
	for _, ch := range r.Checks {
		mark := "ok  "
		switch {
		case !ch.OK:
			mark = "FAIL"
		case ch.Warn:
			mark = "warn"
		}
		fmt.Fprintf(w, "%s  %-18s %s\n", mark, ch.Name, ch.Detail)
		if ch.Fix != "" {
			fmt.Fprintf(w, "      %-18s fix: %s\n", "", ch.Fix)
		}
	}
	if failed := r.Failed(); len(failed) > 0 {
		fmt.Fprintf(w, "not ready: %s failed; runs on this machine would be inconclusive (exit 3)\n", ci.Count(len(failed), "check", "checks"))
		return
	}
	fmt.Fprintln(w, "ready: sysgate can observe and attribute every logged syscall here")
}
