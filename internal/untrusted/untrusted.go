package untrusted

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Terminal shows every character a terminal or log viewer would act on
// as a visible escape: C0 and C1 controls (ESC, BEL, CR, LF, TAB, ...),
// DEL, invalid UTF-8 bytes, and the Unicode format characters that
// reorder or hide text (bidi overrides, zero-width joiners, line and
// paragraph separators). "\x1b[2J" comes out as the eight characters
// `\x1b[2J`, so a name can neither clear the screen, set the window
// title, start a new line that reads as sysgate's own, nor end a
// workflow command early.
func Terminal(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && hostileByte(byte(r)):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hostileRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clean reports whether s has nothing for Terminal to escape: the common
// case, kept free of allocations.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; hostileByte(c) {
			return false
		} else if c >= 0x80 {
			return utf8.ValidString(s) && !strings.ContainsFunc(s, hostileRune) && !strings.ContainsFunc(s[i:], func(r rune) bool { return r < 0x80 && hostileByte(byte(r)) })
		}
	}
	return true
}

func hostileByte(c byte) bool { return c < 0x20 || c == 0x7f }

// hostileRune: C1 controls (0x9b is a one-byte CSI to some terminals)
// and format characters that change how the text around them reads.
func hostileRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200b, r == 0x200c, r == 0x200d, r == 0x200e, r == 0x200f, r == 0xfeff:
		return true
	case r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	}
	return false
}

// markdownText replaces what GitHub-flavoured markdown would act on in
// text: a backslash cannot escape what follows it, HTML (<details>, <img>, entities) is escaped, "|" cannot end a
// table cell, a backtick cannot open a code span, brackets cannot make a
// link, and "@" and "#" get a zero-width joiner after them so no name
// becomes a mention (or a team ping) of whoever it names, or a reference
// to an issue ("closes #1" in a PR body would close it on merge).
var markdownText = strings.NewReplacer(
	"\\", `\\`,
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	"|", `\|`,
	"`", "&#96;",
	"[", `\[`,
	"]", `\]`,
	"@", "@\u200d",
	"#", "#\u200d",
)

// Markdown renders s as text inside a markdown table cell, list item or
// paragraph: Terminal's escapes first (so newlines cannot start a new
// block and no control character reaches the page), then markdownText.
func Markdown(s string) string {
	return markdownText.Replace(Terminal(s))
}

// MarkdownCode renders s as an inline code span outside a table,
// fenced so that backticks in s cannot end it. Inside a code span GitHub
// renders HTML and mentions as text, but it shows entities literally, so
// a value holding "<", ">" or "&" (which Markdown would have to turn
// into entities) is shown as escaped text instead of code.
func MarkdownCode(s string) string {
	s = Terminal(s)
	if strings.ContainsAny(s, "<>&") {
		return Markdown(s)
	}
	return fenced(s)
}

// MarkdownCellCode is MarkdownCode inside a table cell. GFM splits table
// cells on "|" before it finds code spans, so a pipe needs its backslash
// inside the span too; a backslash before a pipe would escape that
// backslash and end the cell, so such a value is shown as escaped text.
func MarkdownCellCode(s string) string {
	s = Terminal(s)
	if strings.ContainsAny(s, "<>&") || strings.Contains(s, `\|`) {
		return Markdown(s)
	}
	return fenced(strings.ReplaceAll(s, "|", `\|`))
}

// fenced wraps s in a code span whose fence no backtick in s can end.
func fenced(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || fence != "`" {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
