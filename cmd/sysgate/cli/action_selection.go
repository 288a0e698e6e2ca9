package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/cmd/sysgate/cli/action"
)

// commandWords splits the command input as the gate runs it: the widening
// check, validate and the run judge and run the same words.
func (a *actionStep) commandWords() ([]string, error) {
	cmd := a.input("command")
	argv, err := action.Words(cmd)
	if err != nil {
		return nil, stepErrorf(ExitUsage, "command: cannot split into words (an unclosed quote?): %s", cmd)
	}
	if len(argv) == 0 {
		return nil, stepErrorf(ExitUsage, "command: empty")
	}
	return argv, nil
}

// passEnv checks the pass-env input and keeps, through sudo, each of this
// step's variables a pattern matches.
func (a *actionStep) passEnv() ([]string, error) {
	pats, err := action.PassEnv(a.input("pass-env"))
	if err != nil {
		return nil, err
	}
	a.keep = append(a.keep, action.MatchingNames(pats, a.env)...)
	return pats, nil
}

// selection is what baseline diff --base and validate need to pick the
// runtime layers as the gate's run will: the environment sysgate gets
// through sudo (it resets it: PYENV_VERSION and the like differ from this
// step's), the env-file and --dir inputs, and the command after "--".
// Both are empty without a command input.
type selection struct {
	flags []string
	argv  []string
}

// runCommand is "--" and the command, for a verb that picks layers by it.
func (s selection) runCommand() []string {
	if len(s.flags) == 0 {
		return nil
	}
	return append([]string{"--"}, s.argv...)
}

func (a *actionStep) selection(extraArgs []string) (selection, error) {
	if a.input("command") == "" {
		return selection{}, nil
	}
	argv, err := a.commandWords()
	if err != nil {
		return selection{}, err
	}
	dir, err := a.tempDir()
	if err != nil {
		return selection{}, err
	}
	var env bytes.Buffer
	cmd := a.asRoot("env", "-0")
	cmd.Stdout = &env
	if err := cmd.Run(); err != nil {
		return selection{}, stepErrorf(ExitInconclusive, "cannot read the environment the gate's run starts with (env -0 through sudo): %v", err)
	}
	envFile := filepath.Join(dir, "env")
	if err := os.WriteFile(envFile, env.Bytes(), 0o600); err != nil {
		return selection{}, stepErrorf(ExitInconclusive, "%v", err)
	}
	s := selection{flags: []string{"--command-env", envFile}, argv: argv}
	if f := a.input("env-file"); f != "" {
		abs, err := filepath.Abs(f)
		if err != nil {
			return selection{}, stepErrorf(ExitUsage, "env-file: %v", err)
		}
		s.flags = append(s.flags, "--env-file", abs)
	}
	for _, arg := range extraArgs {
		if strings.HasPrefix(arg, "--dir=") {
			s.flags = append(s.flags, arg)
		}
	}
	return s, nil
}
