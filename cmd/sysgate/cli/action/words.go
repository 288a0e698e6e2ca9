package action

import (
	"errors"
	"strings"
)

// ErrUnclosedQuote is a command or args input with a quote left open.
var ErrUnclosedQuote = errors.New("an unclosed quote")

// Words splits s as xargs does (the action's inputs always have): blanks
// and newlines separate words, single and double quotes keep blanks in a
// word (nothing is escaped inside them, and they do not span a line), a
// backslash outside quotes takes the next character as it is. Nothing is
// expanded: $HOME stays $HOME.
func Words(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote rune // the open quote, 0 outside one
		esc   bool
	)
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case quote != 0:
			if r == '\n' {
				return nil, ErrUnclosedQuote
			}
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, in = true, true
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, ErrUnclosedQuote
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// Fields splits a list input (baselines, packages) at blanks and newlines.
func Fields(s string) []string { return strings.Fields(s) }
