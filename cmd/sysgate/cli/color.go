package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/sysgate/sysgate/ci"
)

// palette decides whether results written to w are coloured: --color
// always or never says so; auto colours a terminal unless NO_COLOR is set
// to anything (https://no-color.org) or TERM is dumb. A file or pipe never
// gets ANSI codes under auto.
func (c *Command) palette(mode string, w io.Writer) (ci.Palette, error) {
	switch mode {
	case "always":
		return ci.Palette{Color: true}, nil
	case "never":
		return ci.Palette{}, nil
	case "auto":
		f, ok := w.(*os.File)
		return ci.Palette{Color: ok && c.getenv("NO_COLOR") == "" && c.getenv("TERM") != "dumb" && isTerminal(f)}, nil
	}
	return ci.Palette{}, fmt.Errorf("--color %q: want auto, always or never", mode)
}
