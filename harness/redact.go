package harness

import (
	"regexp"
	"strings"
)

// Redacted replaces an argument (or its value part) that looks like a
// secret in a report.
const Redacted = "<redacted>"

// secretName matches option and variable names that carry secrets.
var secretName = regexp.MustCompile(`(?i)(pass(word|wd)?|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|auth|credential|cookie|session)`)

// secretValue matches values that are secrets whatever their option:
// well-known token prefixes and JSON web tokens.
var secretValue = regexp.MustCompile(`^(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*|glpat-[A-Za-z0-9_-]{16,}|npm_[A-Za-z0-9]{30,})$`)

// longOpaque matches a long unbroken run of base64 or hex: a key more
// often than a word.
var longOpaque = regexp.MustCompile(`^[A-Za-z0-9+/=_-]{40,}$`)

// opaque reports whether a looks like a key rather than a path: a long
// run of base64 or hex with at most one "/" (a path has more, and starts
// with one or a dot).
func opaque(a string) bool {
	return longOpaque.MatchString(a) && strings.Count(a, "/") <= 1 && !strings.HasPrefix(a, "/") && !strings.HasPrefix(a, ".")
}

// urlUserinfo matches the password part of scheme://user:password@host.
var urlUserinfo = regexp.MustCompile(`(://[^/:@\s]*:)[^/@\s]+@`)

// redactArgv shows at most ArgvShown arguments of at most ArgvWidth
// bytes each, with values that look like secrets replaced: an option
// named like a secret ("--token X", "--password=X", "TOKEN=X"), a bearer
// header, a URL's password, known token shapes and long opaque strings.
func redactArgv(argv []string, more bool) []string {
	out := make([]string, 0, min(len(argv), ArgvShown)+1)
	secretNext := false
	for i, a := range argv {
		if i == ArgvShown {
			break
		}
		shown := a
		switch {
		case secretNext && i > 0:
			shown = Redacted
		case secretValue.MatchString(a) || (i > 0 && opaque(a)):
			shown = Redacted
		default:
			shown = redactInside(a)
		}
		secretNext = strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && secretName.MatchString(a)
		if len(shown) > ArgvWidth {
			shown = shown[:ArgvWidth-3] + "..."
		}
		out = append(out, shown)
	}
	if len(argv) > ArgvShown || more {
		out = append(out, "...")
	}
	return out
}

// redactInside redacts the secret part of one argument.
func redactInside(a string) string {
	if name, value, ok := strings.Cut(a, "="); ok && value != "" && secretName.MatchString(name) {
		return name + "=" + Redacted
	}
	if i := strings.Index(strings.ToLower(a), "bearer "); i >= 0 {
		return a[:i+len("bearer ")] + Redacted
	}
	if name, value, ok := strings.Cut(a, ": "); ok && value != "" && secretName.MatchString(name) {
		return name + ": " + Redacted
	}
	return urlUserinfo.ReplaceAllString(a, "${1}"+Redacted+"@")
}
