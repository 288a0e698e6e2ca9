package ci

import (
	"fmt"
	"io"

	"github.com/sysgate/sysgate/verdict"
)

// ResultFormats are the formats WriteResult renders one run in (sysgate
// check and enforce --format).
var ResultFormats = []string{"text", "json", "github", "sarif"}

// WriteResult renders one run in format: text (WriteText, coloured by p),
// json (WriteJSON), github, the annotations `sysgate report annotations`
// prints for the same result, or sarif (Report.WriteSARIF), with
// baseline paths relative to root.
func WriteResult(w io.Writer, format string, r *verdict.Result, root string, p Palette) error {
	switch format {
	case "text":
		return WriteText(w, r, p)
	case "json":
		return WriteJSON(w, r)
	case "github":
		return FromResults(root, r).WriteAnnotations(w)
	case "sarif":
		return FromResults(root, r).WriteSARIF(w)
	}
	return fmt.Errorf("unknown format %q", format)
}
