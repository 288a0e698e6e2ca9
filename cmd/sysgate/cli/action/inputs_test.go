package action

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Each bad input is an InputError (exit 2) whose message names the input
// and says what it takes.
func TestInputValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for valid
	}{
		{"bool true", errOnly(Bool("strict", "true")), ""},
		{"bool false", errOnly(Bool("upload", "false")), ""},
		{"bool yes", errOnly(Bool("strict", "yes")), "strict: 'yes' is not true or false"},
		{"bool True", errOnly(Bool("incremental", "True")), "incremental: 'True' is not true or false"},
		{"mode record", Mode("record"), ""},
		{"mode learn", Mode("learn"), "mode: 'learn' is not check, record or enforce"},
		{"backend notify", Backend("notify"), ""},
		{"backend ebpf", Backend("ebpf"), "backend: 'ebpf' is not auto, audit or notify"},
		{"on-widening fail", OnWidening("fail"), ""},
		{"on-widening block", OnWidening("block"), "on-widening: block is not fail or warn"},
		{"record-runs empty", RecordRuns(""), ""},
		{"record-runs 3", RecordRuns("3"), ""},
		{"record-runs 0", RecordRuns("0"), "record-runs: '0' is not a number of runs"},
		{"record-runs 03", RecordRuns("03"), "record-runs: '03' is not a number of runs"},
		{"args ok", errOnly(Args("--grace=2s --tty --dir='a b'")), ""},
		{"args result", errOnly(Args("--result=/tmp/forged.json")), "args: --result is not one the action passes on (it takes --grace"},
		{"args not a flag", errOnly(Args("-b x.yaml")), "args: '-b' is not a flag"},
		{"args bare dashes", errOnly(Args("--")), "args: '--' is not a flag"},
		{"args quote", errOnly(Args("--dir='x")), "args: cannot split into words"},
		{"pass-env ok", errOnly(PassEnv("OPENAI_API_KEY, ANTHROPIC_*\nX?")), ""},
		{"pass-env semicolon", errOnly(PassEnv("A;B")), "pass-env: 'A;B' is not a variable name or glob"},
		{"pass-env bracket", errOnly(PassEnv("A[BC]")), "pass-env: 'A[BC]' is not a variable name or glob"},
	} {
		var ie *InputError
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: %v, want no error", tc.name, tc.err)
		case tc.want != "" && (!errors.As(tc.err, &ie) || !strings.Contains(tc.err.Error(), tc.want)):
			t.Errorf("%s: %v, want an InputError saying %q", tc.name, tc.err, tc.want)
		}
	}
}

func errOnly[T any](_ T, err error) error { return err }

func TestArgsKeepsTheWords(t *testing.T) {
	got, err := Args(`--grace=2s --dir='my dir' --keep-fd=3`)
	if want := []string{"--grace=2s", "--dir=my dir", "--keep-fd=3"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Args = %q, %v; want %q", got, err, want)
	}
}

func TestPassEnvMatchesNamesNotValues(t *testing.T) {
	pats, err := PassEnv("OPENAI_*,FROM_FILE ?X")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"OPENAI_API_KEY=sk", "OPENAI_ORG=o", "FROM_FILE=1", "AX=2", "ABX=3", "HOME=OPENAI_x", "OPENAI_API_KEY=again"}
	got := MatchingNames(pats, env)
	if want := []string{"OPENAI_API_KEY", "OPENAI_ORG", "FROM_FILE", "AX"}; !slices.Equal(got, want) {
		t.Errorf("MatchingNames = %q, want %q", got, want)
	}
}
