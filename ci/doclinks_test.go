package ci

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The README is a landing page: short, and every claim of what the gate
// catches links to the spec that proves it. Its links and those of
// docs/ must lead somewhere: a file that exists, a heading that is there,
// a spec at the line named.

const (
	maxReadmeLines = 200
	catchesSection = "## What it catches, and what it does not"
)

var (
	mdLink     = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)
	lineAnchor = regexp.MustCompile(`^L([0-9]+)$`)
	// specNode is a line that opens a Ginkgo node with a name.
	specNode = regexp.MustCompile(`\b(Describe|DescribeTable|Context|When|It|Entry)\("`)
	quoted   = regexp.MustCompile(`"([^"]+)"`)
)

// docLink is one markdown link outside code blocks.
type docLink struct {
	file, text, target string
	line               int
}

func (l docLink) String() string {
	return fmt.Sprintf("%s:%d: [%s](%s)", l.file, l.line, l.text, l.target)
}

// markdownFiles are the README and every page of docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in ../docs (err %v)", err)
	}
	return append([]string{readmePath}, pages...)
}

// proseLines are a markdown file's lines with those of fenced code blocks
// blanked, so the line numbers stay.
func proseLines(t *testing.T, path string) []string {
	t.Helper()
	lines := strings.Split(fileText(t, path), "\n")
	in := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return lines
}

func linksOf(t *testing.T, path string) []docLink {
	t.Helper()
	var links []docLink
	for i, line := range proseLines(t, path) {
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			links = append(links, docLink{file: path, text: m[1], target: m[2], line: i + 1})
		}
	}
	return links
}

// anchors are the ids GitHub gives a markdown file's headings: lower
// case, punctuation dropped but for - and _, spaces as -, a repeated one
// with -1, -2, ...
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(t, path) {
		level := headingLevel(line)
		if level == 0 {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(line[level:])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		id := b.String()
		if n := seen[id]; n > 0 {
			ids[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}

// reporter takes a finding: a *testing.T, or a collector in the test of
// the checks themselves.
type reporter interface {
	Errorf(format string, args ...any)
}

// collected is a reporter that keeps the last finding.
type collected struct {
	failed bool
	msg    string
}

func (c *collected) Errorf(format string, args ...any) {
	c.failed, c.msg = true, fmt.Sprintf(format, args...)
}

// checkLink reports to r a link whose file, heading or line is not
// there. A line anchor into a spec file must point at a spec node, and a
// quoted name in the link text must be that node's.
func checkLink(t *testing.T, r reporter, l docLink) {
	t.Helper()
	target, frag, _ := strings.Cut(l.target, "#")
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return
	}
	path := l.file
	if target != "" {
		path = filepath.Join(filepath.Dir(l.file), target)
	}
	info, err := os.Stat(path)
	if err != nil {
		r.Errorf("%s: %v", l, err)
		return
	}
	switch {
	case frag == "":
	case info.IsDir():
		r.Errorf("%s: an anchor on a directory", l)
	case strings.HasSuffix(path, ".md"):
		if !anchors(t, path)[frag] {
			r.Errorf("%s: %s has no heading #%s", l, path, frag)
		}
	default:
		m := lineAnchor.FindStringSubmatch(frag)
		if m == nil {
			r.Errorf("%s: #%s on a file that is not markdown: want #L<line>", l, frag)
			return
		}
		n, _ := strconv.Atoi(m[1])
		lines := strings.Split(fileText(t, path), "\n")
		if n < 1 || n > len(lines) {
			r.Errorf("%s: %s has %d lines", l, path, len(lines))
			return
		}
		if !strings.HasSuffix(path, "_test.go") {
			return
		}
		line := lines[n-1]
		name := ""
		if q := quoted.FindStringSubmatch(l.text); q != nil {
			name = q[1]
		}
		if !specNode.MatchString(line) || !strings.Contains(line, name) {
			r.Errorf("%s: line %d of %s is %q, not the spec %q: point the link at the line that holds it now%s",
				l, n, path, strings.TrimSpace(line), name, nowAt(lines, name))
		}
	}
}

// nowAt says where a spec's name is now, for the fix.
func nowAt(lines []string, name string) string {
	if name == "" {
		return ""
	}
	for i, line := range lines {
		if specNode.MatchString(line) && strings.Contains(line, `"`+name) {
			return fmt.Sprintf(" (#L%d)", i+1)
		}
	}
	return " (no spec has that name any more)"
}

// TestDocLinks: every link of the README and of docs/ leads to a file that
// exists, a heading that is there, or a line of a spec that holds the spec
// it names.
func TestDocLinks(t *testing.T) {
	var n int
	for _, path := range markdownFiles(t) {
		for _, l := range linksOf(t, path) {
			checkLink(t, t, l)
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d links in the README and docs/: the link pattern reads nothing", n)
	}
}

// TestDocLinksCatchBrokenOnes: the checks fail where they should, so a
// clean TestDocLinks means something.
func TestDocLinksCatchBrokenOnes(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.md")
	spec := filepath.Join(dir, "x_test.go")
	if err := os.WriteFile(page, []byte("# A page\n\n## Its part\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, []byte("package x\n\nvar _ = It(\"does it\", func() {})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target, text string
		fails        bool
	}{
		{"page.md#its-part", "ok", false},
		{"page.md#a-page", "ok", false},
		{"page.md#nope", "heading", true},
		{"missing.md", "file", true},
		{"x_test.go#L3", `"does it"`, false},
		{"x_test.go#L1", `"does it"`, true},
		{"x_test.go#L3", `"does something else"`, true},
		{"x_test.go#L9", "past the end", true},
		{"x_test.go#spec", "not a line", true},
	} {
		var got collected
		checkLink(t, &got, docLink{file: filepath.Join(dir, "index.md"), text: c.text, target: c.target, line: 1})
		if got.failed != c.fails {
			t.Errorf("[%s](%s): failed %v, want %v (%s)", c.text, c.target, got.failed, c.fails, got.msg)
		}
	}
}

// TestReadmeIsALandingPage: the README stays short, and each row of its
// table of what is caught links at least one spec at its line.
func TestReadmeIsALandingPage(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(fileText(t, readmePath), "\n"), "\n")
	if len(lines) > maxReadmeLines {
		t.Errorf("%s: %d lines, more than %d: move the detail to a page of docs/ and link it", readmePath, len(lines), maxReadmeLines)
	}
	var in bool
	var rows int
	for i, line := range proseLines(t, readmePath) {
		if headingLevel(line) > 0 {
			in = line == catchesSection
			continue
		}
		// The first table of the section is what is caught; it ends at
		// the first line that is not a table row.
		if !in || !strings.HasPrefix(line, "|") {
			if in && rows > 0 {
				break
			}
			continue
		}
		rows++
		if rows <= 2 { // the header and its rule
			continue
		}
		var specs int
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target, frag, _ := strings.Cut(m[2], "#")
			if strings.HasPrefix(target, "suites/") && strings.HasSuffix(target, "_test.go") && lineAnchor.MatchString(frag) {
				specs++
			}
		}
		if specs == 0 {
			t.Errorf("%s:%d: a claim of what is caught without a link to the spec that proves it (suites/..._test.go#L<line>): %s", readmePath, i+1, line)
		}
	}
	if rows < 8 {
		t.Errorf("%s: section %q has %d table lines, want the table of what is caught", readmePath, catchesSection, rows)
	}
}
