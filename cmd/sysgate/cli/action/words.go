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
// expanded: $HOME stays $HOME. "" is an empty word, as in a shell (xargs
// dropped it).
func Words(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
		quote byte // the open quote, 0 outside one
		esc   bool
	)
	// Bytes, not runes: every special character is ASCII, and a byte
	// that is no UTF-8 stays as it was (xargs passes it on).
	for i := 0; i < len(s); i++ {
		r := s[i]
		switch {
		case esc:
			cur.WriteByte(r)
			esc = false
		case quote != 0:
			if r == '\n' {
				return nil, ErrUnclosedQuote
			}
			if r == quote {
				quote = 0
			} else {
				cur.WriteByte(r)
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
			cur.WriteByte(r)
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
