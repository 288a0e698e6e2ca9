package untrusted

import (
	"strings"
	"testing"
)

const hostile = "\x1b[2J\x1b]0;pwned\x07<details>@octocat"

func TestTerminal(t *testing.T) {
	cases := map[string]string{
		"/usr/bin/python3.13":          "/usr/bin/python3.13",
		"naïve/日本":                     "naïve/日本",
		hostile:                        `\x1b[2J\x1b]0;pwned\x07<details>@octocat`,
		"a\nb\rc\td\x7f":               `a\x0ab\x0dc\x09d\x7f`,
		"csi\u009b31m":                 `csi\u009b31m`,
		"bad\xffutf8":                  `bad\xffutf8`,
		"evil\u202etxt.exe":            `evil\u202etxt.exe`,
		"zero\u200bwidth\u2028newline": `zero\u200bwidth\u2028newline`,
		"é\x1b":                        `é\x1b`,
	}
	for in, want := range cases {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	got := Markdown(hostile + "|`x`\n[a](http://e)\\")
	want := `\\x1b\[2J\\x1b\]0;pwned\\x07&lt;details&gt;@` + "\u200d" + `octocat\|&#96;x&#96;\\x0a\[a\](http://e)\\`
	if got != want {
		t.Errorf("Markdown = %q, want %q", got, want)
	}
	if got := Markdown("fixes #1"); got != "fixes #\u200d1" {
		t.Errorf("Markdown(%q) = %q: an issue reference", "fixes #1", got)
	}
	for _, raw := range []string{"\x1b", "\x07", "<details>", "@octocat", "\n", "`"} {
		if strings.Contains(got, raw) {
			t.Errorf("Markdown(%q) keeps %q raw: %q", hostile, raw, got)
		}
	}
}

func TestMarkdownCellCode(t *testing.T) {
	cases := map[string]string{
		"/usr/bin/curl":               "`/usr/bin/curl`",
		"node_modules/@scope/pkg":     "`node_modules/@scope/pkg`",
		"a|b":                         "`a\\|b`",
		"a`b":                         "`` a`b ``",
		"x\x1by":                      "`x\\x1by`",
		"<details>":                   "&lt;details&gt;",
		`a\|b`:                        `a\\\|b`,
		"sh -c 'echo a && echo b'":    "sh -c 'echo a &amp;&amp; echo b'",
		"\x1b]0;t\x07<b>@octocat</b>": `\\x1b\]0;t\\x07&lt;b&gt;@` + "\u200d" + `octocat&lt;/b&gt;`,
	}
	for in, want := range cases {
		if got := MarkdownCellCode(in); got != want {
			t.Errorf("MarkdownCellCode(%q) = %q, want %q", in, got, want)
		}
	}
	// Outside a table a pipe needs no escape, and a backslash none.
	for in, want := range map[string]string{"clone(A|B)": "`clone(A|B)`", `a\|b`: "`a\\|b`", "<b>": "&lt;b&gt;"} {
		if got := MarkdownCode(in); got != want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add(hostile)
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Terminal(s), Markdown(s), MarkdownCode(s), MarkdownCellCode(s)} {
			if strings.ContainsAny(out, "\x1b\x07\n\r") {
				t.Fatalf("%q: control character in %q", s, out)
			}
		}
		if m := Markdown(s); strings.ContainsAny(m, "<>`") {
			t.Fatalf("%q: markdown %q keeps HTML or a backtick", s, m)
		}
	})
}
