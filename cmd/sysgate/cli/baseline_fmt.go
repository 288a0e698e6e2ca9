package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
)

func init() {
	register("baseline fmt", "print baseline files in the canonical layout (-w rewrites, -l lists unformatted files)", (*Command).runBaselineFmt)
}

func (c *Command) runBaselineFmt(args []string) int {
	fs := c.flagSet("baseline fmt", "FILE...")
	write := fs.Bool("w", false, "rewrite the files in place (atomically)")
	list := fs.Bool("l", false, "list files whose layout differs; exit 1 if any (without -w)")
	if code, ok := c.parseFileArgs(fs, args); !ok {
		return code
	}
	code := ExitOK
	for _, path := range fs.Args() {
		data, err := baseline.ReadInput(path)
		if err != nil {
			code = c.errorf(ExitUsage, "fmt: %v", err)
			continue
		}
		doc, err := baseline.ParseDocument(path, data)
		if err != nil {
			c.printFindings(err)
			code = ExitUsage
			continue
		}
		lost := 0
		for _, w := range doc.Warnings {
			if w.Kind == baseline.KindFormat {
				fmt.Fprintln(c.Stderr, w)
				lost++
			}
		}
		out := doc.Format()
		changed := !bytes.Equal(out, data)
		if *write && lost > 0 {
			// gofmt never loses a comment; neither does fmt -w.
			code = c.errorf(ExitUsage, "fmt: %s not rewritten: %s would be lost; move them above an entry or into a reason", path, ci.Count(lost, "comment", "comments"))
			continue
		}
		if *list && changed {
			fmt.Fprintln(c.Stdout, path)
			if !*write && code == ExitOK {
				code = ExitViolation
			}
		}
		if *write && changed {
			if err := baseline.Save(path, doc); err != nil {
				code = c.errorf(ExitInconclusive, "fmt: %v", err)
			}
		}
		if !*write && !*list {
			c.Stdout.Write(out)
		}
	}
	return code
}

// parseFileArgs is parse for verbs that take one or more files.
func (c *Command) parseFileArgs(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if code, ok := c.parse(fs, args); !ok {
		return code, false
	}
	return c.require(fs, fs.Name(), required{"FILE", fs.NArg() > 0})
}

// printFindings prints a baseline error's findings one per line, or the
// error itself when it carries none.
func (c *Command) printFindings(err error) {
	findings := baseline.Errors(err)
	if len(findings) == 0 || !errors.Is(err, baseline.ErrInvalid) {
		fmt.Fprintf(c.Stderr, "sysgate: %v\n", err)
		return
	}
	for _, f := range findings {
		fmt.Fprintln(c.Stdout, f)
	}
}
