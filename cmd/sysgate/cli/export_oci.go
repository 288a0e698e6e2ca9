package cli

import (
	"fmt"

	"github.com/sysgate/sysgate/baseline"
)

func init() {
	register("export oci", "write baselines as an OCI seccomp profile (Docker, Podman, containerd, Kubernetes)", (*Command).runExportOCI)
}

func (c *Command) runExportOCI(args []string) int {
	fs := c.flagSet("export oci", "")
	var files listFlag
	fs.Var(&files, "b", "a `BASELINE` file (repeatable; extends are followed)")
	out := fs.String("o", "", "write the profile to `FILE` (atomically); default stdout")
	action := fs.String("default-action", "errno", "for syscalls outside the baselines: errno (refuse with --errno), kill or log (allow and audit)")
	errnoFlag := fs.String("errno", "", "with --default-action errno: the `ERRNO` refused syscalls return: EPERM (the default), ENOSYS or a number from 1 to 4095. "+
		"ENOSYS tells a program the syscall does not exist, so libc and runtimes fall back to an older one "+
		"(Docker's default profile answers clone3 so, and runc answers syscalls newer than a profile so); EPERM says it exists and is refused")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.errorf(ExitUsage, "export oci: unexpected argument %q (baselines go after -b)", fs.Arg(0))
	}
	if code, ok := c.require(fs, "export oci", required{"-b BASELINE", len(files) > 0}); !ok {
		return code
	}
	def, err := baseline.ParseAction(*action)
	if err != nil {
		return c.errorf(ExitUsage, "export oci: --default-action: %v", err)
	}
	var errno uint
	if *errnoFlag != "" {
		if def != baseline.ActionErrno {
			return c.errorf(ExitUsage, "export oci: --errno %s goes with --default-action errno, not %s", *errnoFlag, def)
		}
		if errno, err = baseline.ParseErrno(*errnoFlag); err != nil {
			return c.errorf(ExitUsage, "export oci: --errno: %v", err)
		}
	}
	p, err := baseline.LoadStack(files...)
	if err != nil {
		c.printFindings(err)
		return ExitUsage
	}
	// An exported profile ships to production: say what is unreviewed.
	for _, w := range p.Warnings() {
		if w.Kind == baseline.KindUnreviewed {
			fmt.Fprintln(c.Stderr, w)
		}
	}
	data, err := baseline.ExportOCI(p, baseline.OCIOptions{Default: def, Errno: errno})
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	if *out == "" || *out == "-" {
		c.Stdout.Write(data)
		return ExitOK
	}
	if err := baseline.WriteFileAtomic(*out, data); err != nil {
		return c.errorf(ExitInconclusive, "export oci: %v", err)
	}
	return ExitOK
}
