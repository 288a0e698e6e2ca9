package ci

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// WriteJSON renders one run as its Result JSON (check --format json),
// indented; Load reads it back.
func WriteJSON(w io.Writer, r *verdict.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteResultFile writes the Result JSON to path atomically, so a report
// step never reads half a file.
func WriteResultFile(path string, r *verdict.Result) error {
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		return err
	}
	return baseline.WriteFileAtomic(path, b.Bytes())
}
