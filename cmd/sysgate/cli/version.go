package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register("version", "print the sysgate version and build information", (*Command).runVersion)
}

// version is stamped at link time by make build and make release:
//
//	-ldflags "-X github.com/sysgate/sysgate/cmd/sysgate/cli.version=$(git describe --tags --always --dirty)"
//
// Empty (go build, go install), the module version from the build info is
// printed instead: v1.2.3 for go install ...@v1.2.3.
var version string

// buildVersion is the version and VCS revision sysgate was built from:
// the stamped version first, then the module's, else "(devel)".
func buildVersion(stamped string, info *debug.BuildInfo, ok bool) (version, revision string) {
	version = "(devel)"
	if ok {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	if stamped != "" {
		version = stamped
	}
	return version, revision
}

func (c *Command) runVersion(args []string) int {
	fs := c.flagSet("version", "")
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	info, ok := debug.ReadBuildInfo()
	version, revision := buildVersion(version, info, ok)
	fmt.Fprintf(c.Stdout, "sysgate %s", version)
	if revision != "" {
		fmt.Fprintf(c.Stdout, " (%s)", revision)
	}
	fmt.Fprintf(c.Stdout, " %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return ExitOK
}
