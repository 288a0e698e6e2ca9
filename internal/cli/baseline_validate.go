package cli

import (
	"errors"
	"fmt"

	"github.com/sysgate/sysgate/baseline"
)

func init() {
	register("baseline validate", "check baseline files and what they extend; print file:line: message [kind]", (*Command).runBaselineValidate)
}

func (c *Command) runBaselineValidate(args []string) int {
	fs := c.flagSet("baseline validate", "FILE...")
	strict := fs.Bool("strict", false, "treat warnings (unreviewed reasons, comments fmt drops) as errors")
	if code, ok := c.parseFileArgs(fs, args); !ok {
		return code
	}
	code := ExitOK
	for _, path := range fs.Args() {
		p, err := baseline.Load(path)
		if err != nil && !errors.Is(err, baseline.ErrInvalid) {
			code = c.errorf(ExitUsage, "%v", err)
			continue
		}
		findings := baseline.Errors(err)
		if p != nil {
			findings = p.Warnings()
		}
		for _, f := range findings {
			fmt.Fprintln(c.Stdout, f)
			if !f.Warning || *strict {
				code = ExitUsage
			}
		}
	}
	return code
}
