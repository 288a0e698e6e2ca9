package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
// baseline file that lists them (baseline.InRepository), exist, and are
// the repository's own: tracked by git in their work tree (trackedBy).
// A build output (untracked, or made during the run) is not held: a
// build step rebuilds it, and its entry judges it as before. An exec of
// a held program with another content is the agent changing the
// repository's own program during the run (pinMismatches). That, not a
// pin, is what holds them: an edit in a pull request is judged by review
// and by what the edited code then does (baseline/programs_pin.go). The
// workspace "/" holds nothing (every program would be its).
func heldPrograms(p *baseline.Profile, workspace string) map[string]string {
	var candidates []string
	consider := func(file, path string) {
		if len(candidates) < maxHeld && (inWorkspace(path, workspace) || baseline.InRepository(file, path)) && !slices.Contains(candidates, path) {
			candidates = append(candidates, path)
		}
	}
	for _, e := range p.Programs() {
		switch {
		case e.Runtime != "":
		case e.Pattern:
			matches, _ := filepath.Glob(e.Path) // only a malformed pattern errs: validate names it
			for _, m := range matches {
				consider(e.File, m)
			}
		default:
			consider(e.File, e.Path)
		}
	}
	held := map[string]string{}
	for _, path := range trackedBy(candidates) {
		if _, sum, err := programSums.SumFile(path, kernel.SumFresh); err == nil {
			held[path] = sum
		}
	}
	return held
}

// trackedBy keeps the paths git tracks in their work trees, and every
// path outside one (a workspace that is no repository). Where git cannot
// say (not installed, an unreadable repository), it keeps them all: a
// build output there is held too, and a rebuild of it is reported.
func trackedBy(paths []string) []string {
	byRoot := map[string][]string{}
	for _, p := range paths {
		root := baseline.WorkTreeOf(p)
		byRoot[root] = append(byRoot[root], p)
	}
	var out []string
	for root, list := range byRoot {
		if root == "" {
			out = append(out, list...)
			continue
		}
		tracked, err := gitTracked(root, list)
		if err != nil {
			out = append(out, list...)
			continue
		}
		out = append(out, tracked...)
	}
	slices.Sort(out)
	return out
}

// gitTracked asks git which of paths (absolute, in the work tree root)
// it tracks. The repository's own configuration is not trusted to run
// anything (core.fsmonitor), and root reads a checkout another user
// owns (safe.directory).
func gitTracked(root string, paths []string) ([]string, error) {
	args := []string{"-c", "core.fsmonitor=false", "-c", "safe.directory=*", "-C", root, "ls-files", "-z", "--"}
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil, err
		}
		args = append(args, ":(literal)"+rel)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	var tracked []string
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel != "" {
			tracked = append(tracked, filepath.Join(root, rel))
		}
	}
	return tracked, nil
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
	if !ok || sum == start {
		return ""
	}
	was := "it was sha256 " + start + " at the run's start"
	now := "unreadable to sysgate"
	if sum != "" {
		now = "sha256 " + sum
	}
	return path + " is " + now + "; " + was + ": the agent changed a program of the workspace during the run"
}
