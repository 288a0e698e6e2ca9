package cli

import (
	"flag"
	"fmt"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/export"
)

func init() {
	register("export oci", "write baselines as an OCI seccomp profile (Docker, Podman, containerd, Kubernetes)", (*Command).runExportOCI)
}

func (c *Command) runExportOCI(args []string) int {
	fs := c.flagSet("export oci", "")
	ex := c.exportFlags(fs, "profile", "errno (refuse with --errno)")
	errnoFlag := fs.String("errno", "", "with --default-action errno: the `ERRNO` refused syscalls return: EPERM (the default), ENOSYS or a number from 1 to 4095. "+
		"ENOSYS tells a program the syscall does not exist, so libc and runtimes fall back to an older one "+
		"(Docker's default profile answers clone3 so, and runc answers syscalls newer than a profile so); EPERM says it exists and is refused")
	p, def, code, ok := ex.load(args)
	if !ok {
		return code
	}
	var errno uint
	if *errnoFlag != "" {
		if def != baseline.ActionErrno {
			return c.errorf(ExitUsage, "export oci: --errno %s goes with --default-action errno, not %s", *errnoFlag, def)
		}
		var err error
		if errno, err = export.ParseErrno(*errnoFlag); err != nil {
			return c.errorf(ExitUsage, "export oci: --errno: %v", err)
		}
	}
	data, err := export.ExportOCI(p, export.OCIOptions{Default: def, Errno: errno})
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	return ex.write(data)
}

// exportVerb is what the export verbs share: the baselines, the output
// file and the default action.
type exportVerb struct {
	c      *Command
	fs     *flag.FlagSet
	verb   string
	files  listFlag
	out    *string
	action *string
}

// exportFlags defines -b, -o and --default-action on fs; what names the
// output, errno says what the errno action does.
func (c *Command) exportFlags(fs *flag.FlagSet, what, errno string) *exportVerb {
	ex := &exportVerb{c: c, fs: fs, verb: fs.Name()[len("sysgate "):]}
	fs.Var(&ex.files, "b", "a `BASELINE` file (repeatable; extends are followed)")
	ex.out = fs.String("o", "", "write the "+what+" to `FILE` (atomically); default stdout")
	ex.action = fs.String("default-action", "errno", "for syscalls outside the baselines: "+errno+", kill or log (allow and audit)")
	return ex
}

// load parses args and loads the baselines, printing the unreviewed
// reasons: an exported profile ships to production. ok is false when the
// verb should return code.
func (ex *exportVerb) load(args []string) (p *baseline.Profile, def baseline.Action, code int, ok bool) {
	c := ex.c
	if code, ok := c.parse(ex.fs, args); !ok {
		return nil, 0, code, false
	}
	if ex.fs.NArg() > 0 {
		return nil, 0, c.errorf(ExitUsage, "%s: unexpected argument %q (baselines go after -b)", ex.verb, ex.fs.Arg(0)), false
	}
	if code, ok := c.require(ex.fs, ex.verb, required{"-b BASELINE", len(ex.files) > 0}); !ok {
		return nil, 0, code, false
	}
	def, err := baseline.ParseAction(*ex.action)
	if err != nil {
		return nil, 0, c.errorf(ExitUsage, "%s: --default-action: %v", ex.verb, err), false
	}
	p, err = c.loadStack(ex.files...)
	if err != nil {
		c.printFindings(err)
		return nil, 0, ExitUsage, false
	}
	for _, w := range p.Warnings() {
		if w.Kind == baseline.KindUnreviewed {
			fmt.Fprintln(c.Stderr, w)
		}
	}
	return p, def, ExitOK, true
}

// write writes data to -o FILE atomically, or to stdout.
func (ex *exportVerb) write(data []byte) int {
	if *ex.out == "" || *ex.out == "-" {
		ex.c.Stdout.Write(data)
		return ExitOK
	}
	if err := baseline.WriteFileAtomic(*ex.out, data); err != nil {
		return ex.c.errorf(ExitInconclusive, "%s: %v", ex.verb, err)
	}
	return ExitOK
}
