package update

import (
	"regexp"
	"strings"
)

// Codeowners is a CODEOWNERS file: who must review a path. GitHub reads
// the file of the pull request's base branch, so a pull request cannot
// name its own reviewers; callers read it at the base commit too.
type Codeowners struct {
	rules []codeownersRule
}

type codeownersRule struct {
	match  *regexp.Regexp
	owners []string
}

// CodeownersPaths are where GitHub looks, in its order; the first that
// exists is used.
var CodeownersPaths = []string{".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS"}

// ParseCodeowners reads a CODEOWNERS file. A line it cannot turn into a
// pattern is skipped, as GitHub skips (and flags) it.
func ParseCodeowners(data []byte) *Codeowners {
	c := &Codeowners{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		var owners []string
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "#") {
				break
			}
			owners = append(owners, f)
		}
		if re := codeownersPattern(fields[0]); re != nil {
			c.rules = append(c.rules, codeownersRule{match: re, owners: owners})
		}
	}
	return c
}

// Owners returns who must review path (slash-separated, relative to the
// repository's top): the last matching line's owners, none when no line
// matches or that line names nobody.
func (c *Codeowners) Owners(path string) []string {
	if c == nil {
		return nil
	}
	for i := len(c.rules) - 1; i >= 0; i-- {
		if c.rules[i].match.MatchString(path) {
			return c.rules[i].owners
		}
	}
	return nil
}

// codeownersPattern is gitignore's syntax as CODEOWNERS uses it: a
// pattern with a slash (other than a trailing one) is anchored at the
// top, one without matches at any depth, "*" stays within a directory,
// "**" crosses them, and a directory's pattern covers what it holds.
func codeownersPattern(p string) *regexp.Regexp {
	dirOnly := strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	anchored := strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil
	}
	var b strings.Builder
	if anchored {
		b.WriteString("^")
	} else {
		b.WriteString("^(?:.*/)?")
	}
	for i := 0; i < len(p); i++ {
		switch {
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case p[i] == '*':
			b.WriteString("[^/]*")
		case p[i] == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	if dirOnly {
		b.WriteString("/.*$")
	} else {
		b.WriteString("(?:/.*)?$")
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}
