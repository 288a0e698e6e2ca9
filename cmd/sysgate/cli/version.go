package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register("version", "print the sysgate version and build information", (*Command).runVersion)
}

func (c *Command) runVersion(args []string) int {
	fs := c.flagSet("version", "")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	version, revision := "(devel)", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	fmt.Fprintf(c.Stdout, "sysgate %s", version)
	if revision != "" {
		fmt.Fprintf(c.Stdout, " (%s)", revision)
	}
	fmt.Fprintf(c.Stdout, " %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return ExitOK
}
