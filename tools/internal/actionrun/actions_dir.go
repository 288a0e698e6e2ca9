package actionrun

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A real runner downloads each uses: action into
// <work>/_actions/<owner>/<repo>/<ref>/ before the job's first step, owned
// by the job's user, and runs its code from there when the step comes: a
// step that writes there runs its code in a later step. The dry run lays
// out the same tree for the actions it simulates, a stand-in of their code
// in each (dist/index.js), and before a simulated action runs it checks
// that its code is what was laid out: a change is reported as the code
// the runner would have run (Result.TamperedActions).

// actionsDir is the runner's _actions directory: the one the action
// itself was checked out into when ActionDir is <_actions>/owner/repo/ref
// (as GitHub lays it out, and as a test can), else OutDir/_actions.
func actionsDir(actionDir, outDir string) string {
	up := filepath.Dir(filepath.Dir(filepath.Dir(actionDir)))
	if filepath.Base(up) == "_actions" {
		return up
	}
	return filepath.Join(outDir, "_actions")
}

// actionCode is the stand-in of an action's code the dry run lays out.
func actionCode(uses string) string {
	return "// the dry run's stand-in for " + uses + "'s code: a real runner runs this file\n"
}

// layOutActions writes every uses: action's directory and code, and
// remembers the code's hash.
func (j *job) layOutActions() error {
	j.actionCode = map[string]string{}
	for _, s := range j.cfg.Action.Steps {
		if s.Uses == "" || strings.HasPrefix(s.Uses, "./") || strings.HasPrefix(s.Uses, "docker://") {
			continue
		}
		name, ref, ok := strings.Cut(s.Uses, "@")
		if !ok || strings.Contains(ref, "/") || strings.Contains(ref, "..") {
			continue // actionName reports it when the step runs
		}
		file := filepath.Join(j.actions, filepath.FromSlash(name), ref, "dist", "index.js")
		if _, seen := j.actionCode[file]; seen {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		code := actionCode(s.Uses)
		if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
			return err
		}
		j.actionCode[file] = hashString(code)
	}
	return nil
}

// checkActionCode reports the action's code when it is not what was laid
// out: the code a runner would run in this step.
func (j *job) checkActionCode(uses string, res *StepResult) {
	name, ref, _ := strings.Cut(uses, "@")
	file := filepath.Join(j.actions, filepath.FromSlash(name), ref, "dist", "index.js")
	want, ok := j.actionCode[file]
	if !ok {
		return
	}
	got, err := fileHash(file)
	if err == nil && got == want {
		return
	}
	what := "changed"
	if err != nil {
		what = fmt.Sprintf("unreadable (%v)", err)
	}
	j.result.TamperedActions = append(j.result.TamperedActions, file)
	j.warn(res, fmt.Sprintf("%s: the action's code %s is %s since the runner downloaded it: a runner would run it in this step", uses, file, what))
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func fileHash(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return hashString(string(b)), nil
}
