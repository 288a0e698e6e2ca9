package action

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// InputError is a bad input: its message names the input and the fix.
// The action exits 2 for it.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, a ...any) error { return &InputError{Msg: fmt.Sprintf(format, a...)} }

// Bool checks a true-or-false input.
func Bool(name, v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, inputErrorf("%s: '%s' is not true or false", name, v)
}

// Mode checks the mode input.
func Mode(v string) error {
	if v == "check" || v == "record" || v == "enforce" {
		return nil
	}
	return inputErrorf("mode: '%s' is not check, record or enforce", v)
}

// Backend checks the backend input.
func Backend(v string) error {
	if v == "auto" || v == "audit" || v == "notify" {
		return nil
	}
	return inputErrorf("backend: '%s' is not auto, audit or notify", v)
}

// OnWidening checks the on-widening input.
func OnWidening(v string) error {
	if v == "fail" || v == "warn" {
		return nil
	}
	return inputErrorf("on-widening: %s is not fail or warn", v)
}

var recordRuns = regexp.MustCompile(`^([1-9][0-9]*)?$`)

// RecordRuns checks the record-runs input: empty or a positive number.
func RecordRuns(v string) error {
	if recordRuns.MatchString(v) {
		return nil
	}
	return inputErrorf("record-runs: '%s' is not a number of runs (empty: until stable)", v)
}

// AllowedArgs are the flags of sysgate's run verbs the args input may
// pass on: how the agent runs, never where outputs go (--result, --junit,
// --force and -b are the action's).
var AllowedArgs = []string{"grace", "keep-cap", "tty", "no-programs", "no-files", "no-network", "no-arg-classes",
	"allow-unisolated", "user", "dir", "keep-fd"}

// Args splits and checks the args input.
func Args(v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	words, err := Words(v)
	if err != nil {
		return nil, inputErrorf("args: cannot split into words (an unclosed quote?): %s", v)
	}
	for _, w := range words {
		if !strings.HasPrefix(w, "--") || len(w) < 3 {
			return nil, inputErrorf("args: '%s' is not a flag (--name or --name=value)", w)
		}
		name, _, _ := strings.Cut(w[2:], "=")
		if !slices.Contains(AllowedArgs, name) {
			flags := make([]string, len(AllowedArgs))
			for i, a := range AllowedArgs {
				flags[i] = "--" + a
			}
			return nil, inputErrorf("args: --%s is not one the action passes on (it takes %s; outputs, baselines and mode are inputs of their own)",
				name, strings.Join(flags, " "))
		}
	}
	return words, nil
}

var passEnvPattern = regexp.MustCompile(`^[A-Za-z0-9_*?]+$`)

// PassEnv splits and checks the pass-env input: names or globs separated
// by spaces, tabs, commas or newlines.
func PassEnv(v string) ([]string, error) {
	pats := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ',' })
	for _, p := range pats {
		if !passEnvPattern.MatchString(p) {
			return nil, inputErrorf("pass-env: '%s' is not a variable name or glob (letters, digits, _, * and ?)", p)
		}
	}
	return pats, nil
}

// MatchingNames are the names in environ ("KEY=value") that one of the
// pass-env patterns matches: sudo must keep them.
func MatchingNames(patterns, environ []string) []string {
	var names []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		for _, p := range patterns {
			if ok, _ := path.Match(p, name); ok && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}
