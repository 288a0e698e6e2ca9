package action

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Words splits as xargs did when the action was bash: the same command
// input must run the same argv.
func TestWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  error
	}{
		{"", nil, nil},
		{"  \n\t ", nil, nil},
		{"python3 agent.py --task triage", []string{"python3", "agent.py", "--task", "triage"}, nil},
		{`sh -c 'echo one; echo two'`, []string{"sh", "-c", "echo one; echo two"}, nil},
		{`a "b c" d`, []string{"a", "b c", "d"}, nil},
		{`a "it's" 'say "hi"'`, []string{"a", "it's", `say "hi"`}, nil},
		{`a\ b c\\d`, []string{"a b", `c\d`}, nil},
		{`echo $HOME`, []string{"echo", "$HOME"}, nil},
		{`x"y z"w`, []string{"xy zw"}, nil},
		{`a ""`, []string{"a", ""}, nil},
		{"one\ntwo", []string{"one", "two"}, nil},
		{`"\n"`, []string{`\n`}, nil},
		{`a 'b`, nil, ErrUnclosedQuote},
		{"a 'b\nc'", nil, ErrUnclosedQuote},
	} {
		got, err := Words(tc.in)
		if !errors.Is(err, tc.err) || !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// FuzzWords: any input splits or fails without a panic, and words quoted
// as a person would (in single quotes) come back as they were.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"python3 agent.py", `sh -c 'a; b'`, `a\ b "c d"`, "'", `\`} {
		f.Add(s, "x y")
	}
	f.Fuzz(func(t *testing.T, input, word string) {
		_, _ = Words(input)
		if strings.ContainsAny(word, "'\n") {
			return
		}
		got, err := Words("cmd '" + word + "' --flag")
		if want := []string{"cmd", word, "--flag"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("Words of %q quoted = %q, %v; want %q", word, got, err, want)
		}
	})
}
