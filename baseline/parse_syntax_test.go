package baseline

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestParseSyntaxErrors pins file, line and column of the errors a file
// that does not parse gets. yaml.v3 gives no column for a syntax error
// (see parser.syntax), so Col is 0 there; a finding read from a node has
// both.
func TestParseSyntaxErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
		want      string
	}{
		{"tab indentation", "version: 1\nsyscalls:\n\tx86_64: [read]\n", 3, 0,
			"f.yaml:3: YAML: found character that cannot start any token [syntax]"},
		{"tab on the first line", "\tversion: 1\n", 0, 0,
			"f.yaml: YAML: found character that cannot start any token [syntax]"},
		{"unclosed quote", "version: 1\nsyscalls:\n  x86_64:\n    - read: \"a reason\n", 4, 0,
			"f.yaml:4: YAML: found unexpected end of stream [syntax]"},
		{"bad mapping", "version: 1\nsyscalls:\n  x86_64:\n    - read: a: b\n", 4, 0,
			"f.yaml:4: YAML: mapping values are not allowed in this context [syntax]"},
		{"unclosed flow list", "version: 1\nsyscalls:\n  x86_64: [read\n", 3, 0,
			"f.yaml:3: YAML: did not find expected ',' or ']' [syntax]"},
		{"unclosed flow list, first line", "[read\n", 2, 0,
			"f.yaml:2: YAML: did not find expected ',' or ']' [syntax]"},
		{"bad indentation", "version: 1\nsyscalls:\n  x86_64:\n    - read\n   - write\n", 3, 0,
			"f.yaml:3: YAML: did not find expected key [syntax]"},
		{"duplicate key", "version: 1\nsyscalls:\n  x86_64: [read]\nsyscalls:\n  x86_64: [write]\n", 4, 1,
			`f.yaml:4: key "syscalls" given twice [duplicate]`},
		{"duplicate key in JSON", `{"version": 1, "syscalls": {"x86_64": ["read"], "x86_64": ["write"]}}` + "\n", 1, 49,
			`f.yaml:1: architecture x86_64 listed twice in syscalls [duplicate]`},
		{"JSON without its closing brace", "{\"version\": 1,\n \"syscalls\": {\"x86_64\": [\"read\"]}\n", 3, 0,
			"f.yaml:3: JSON: did not find expected ',' or '}' [syntax]"},
		{"JSON with a missing comma", "{\"version\": 1\n \"syscalls\": {\"x86_64\": [\"read\"]}}\n", 2, 0,
			"f.yaml:2: JSON: did not find expected ',' or '}' [syntax]"},
		{"anchor", "version: 1\nsyscalls:\n  x86_64: &a [read]\n  i386: *a\n", 3, 11,
			"f.yaml:3: YAML anchors and aliases are not allowed in a baseline: write each entry out [syntax]"},
		{"second document", "version: 1\nsyscalls: {x86_64: [read]}\n---\nversion: 1\n", 3, 1,
			"f.yaml:3: a baseline file holds one document [syntax]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDocument("f.yaml", []byte(c.src))
			errs := Errors(err)
			if len(errs) != 1 {
				t.Fatalf("want one error, got %d:\n%v", len(errs), err)
			}
			e := errs[0]
			if e.Error() != c.want || e.Line != c.line || e.Col != c.col {
				t.Errorf("got %s (line %d, col %d)\nwant %s (line %d, col %d)", e, e.Line, e.Col, c.want, c.line, c.col)
			}
		})
	}
}

// TestYAMLSyntaxErrorText pins the text of yaml.v3's syntax errors, the
// one thing the parser reads out of an error message (syntaxPosition):
// if a new yaml release words them differently, this fails before a user
// sees a syntax error without its line.
func TestYAMLSyntaxErrorText(t *testing.T) {
	cases := []struct {
		src, text string
		line      int
		problem   string
	}{
		// Scanner errors: 1-based line, none on the first.
		{"a:\n\tb: c\n", "yaml: line 2: found character that cannot start any token", 2, "found character that cannot start any token"},
		{"a: b: c\n", "yaml: mapping values are not allowed in this context", 0, "mapping values are not allowed in this context"},
		// Parser errors: 0-based line, none on the first.
		{"a:\n  - b\n - c\n", "yaml: line 2: did not find expected key", 3, "did not find expected key"},
		{"- a\nb: c\n", "yaml: line 1: did not find expected '-' indicator", 2, "did not find expected '-' indicator"},
		{"{a: b]\n", "yaml: did not find expected ',' or '}'", 1, "did not find expected ',' or '}'"},
		// The reader's errors have no line, wherever they are.
		{"a: b\nc: \xff\n", "yaml: invalid leading UTF-8 octet", 0, "invalid leading UTF-8 octet"},
		// Not yaml's wording: no line, the whole text kept.
		{"", "something else", 0, "something else"},
	}
	for _, c := range cases {
		text := c.text
		if c.src != "" {
			var n yaml.Node
			err := yaml.Unmarshal([]byte(c.src), &n)
			if err == nil {
				t.Fatalf("%q parses", c.src)
			}
			if text = err.Error(); text != c.text {
				t.Errorf("%q: yaml says %q, want %q", c.src, text, c.text)
			}
		}
		if line, problem := syntaxPosition(text); line != c.line || problem != c.problem {
			t.Errorf("syntaxPosition(%q) = %d, %q; want %d, %q", text, line, problem, c.line, c.problem)
		}
	}
}
