package ci

import (
	"fmt"
	"io"
)

// WriteGitHubOutput appends the gate's step outputs in the format of
// GitHub's $GITHUB_OUTPUT file (--github-output): verdict=<verdict> and
// violations=<n>, the number of new syscalls per agent and arch as the
// annotations count them. The caller opens the file; values never hold
// a newline, so no delimiter syntax is needed.
func (r *Report) WriteGitHubOutput(w io.Writer) error {
	_, err := fmt.Fprintf(w, "verdict=%s\nviolations=%d\n", r.Verdict(), len(r.newRows()))
	return err
}
