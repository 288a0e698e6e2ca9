package harness

import (
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
)

// maxHeld bounds how many of the workspace's programs a run hashes
// before it starts (a pattern over a large tree); past it the rest are
// checked by their entries alone.
const maxHeld = 4096

// heldPrograms hashes, before the agent starts, the programs its
// baselines list (an exact entry, or each file a pattern matches now)
// that lie in the run's workspace or in the repository holding the
// baseline file that lists them (baseline.InRepository): path to
// sha256, "" for one that did not exist then. An exec of one of them
// with another content, or of one that did not exist, is the agent
// changing the repository's own program during the run
// (pinMismatches). That, not a pin, is what holds the repository's
// programs: an edit in a pull request is judged by review and by what
// the edited code then does (baseline/programs_pin.go). The workspace
// "/" holds nothing (every program would be its).
func heldPrograms(p *baseline.Profile, workspace string) map[string]string {
	held := map[string]string{}
	hold := func(file, path string) {
		if len(held) >= maxHeld || (!inWorkspace(path, workspace) && !baseline.InRepository(file, path)) {
			return
		}
		if _, sum, err := programSums.SumFile(path, kernel.SumFresh); err == nil {
			held[path] = sum
		} else {
			held[path] = ""
		}
	}
	for _, e := range p.Programs() {
		switch {
		case e.Runtime != "":
		case e.Pattern:
			matches, _ := filepath.Glob(e.Path) // only a malformed pattern errs: validate names it
			for _, m := range matches {
				hold(e.File, m)
			}
		default:
			hold(e.File, e.Path)
		}
	}
	return held
}

func holdsWorkspace(workspace string) bool { return workspace != "" && workspace != "/" }

// inWorkspace reports whether the program at path lies in the workspace.
func inWorkspace(path, workspace string) bool {
	return holdsWorkspace(workspace) && strings.HasPrefix(path, workspace+"/")
}

// heldMismatch says how the program at path differs from its content at
// the run's start (sum: its content now, "" when unreadable); "" when it
// does not, or the run did not hold it.
func heldMismatch(held map[string]string, path, sum string) string {
	start, ok := held[path]
	if !ok || (start != "" && sum == start) {
		return ""
	}
	was := "it did not exist at the run's start"
	if start != "" {
		was = "it was sha256 " + start + " at the run's start"
	}
	now := "unreadable to sysgate"
	if sum != "" {
		now = "sha256 " + sum
	}
	return path + " is " + now + "; " + was + ": the agent changed a program of the workspace during the run"
}
