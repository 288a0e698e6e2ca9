package harness

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/verdict"
)

// lazyRegexp compiles pattern on first use: these run only when a report
// shows a command line, and compiling them at start-up cost every sysgate
// process ~0.2 ms (GODEBUG=inittrace=1).
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// Redacted replaces an argument (or its value part) that looks like a
// secret in a report.
const Redacted = "<redacted>"

// secretName matches option and variable names that carry secrets.
var secretName = lazyRegexp(`(?i)(pass(word|wd)?|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|auth|credential|cookie|session)`)

// tokenShapes are secrets whatever their option: well-known token
// prefixes and JSON web tokens.
const tokenShapes = `gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}\b|` +
	`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*|glpat-[A-Za-z0-9_-]{16,}|npm_[A-Za-z0-9]{30,}`

// secretValue matches an argument that is a token; tokenInside a token
// inside an argument (code given to -c or -e, a shell line), starting a
// word so that "disk-usage" is no "sk-" key.
var (
	secretValue = lazyRegexp(`^(?:` + tokenShapes + `)$`)
	tokenInside = lazyRegexp(`\b(?:` + tokenShapes + `)`)
)

// bearer matches the credential of an "Authorization: Bearer" header.
var bearer = lazyRegexp(`(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]+`)

// longOpaque matches a long unbroken run of base64 or hex: a key more
// often than a word.
var longOpaque = lazyRegexp(`^[A-Za-z0-9+/=_-]{40,}$`)

// opaque reports whether a looks like a key rather than a path: a long
// run of base64 or hex with at most one "/" (a path has more, and starts
// with one or a dot).
func opaque(a string) bool {
	return longOpaque().MatchString(a) && strings.Count(a, "/") <= 1 && !strings.HasPrefix(a, "/") && !strings.HasPrefix(a, ".")
}

// urlUserinfo matches the password part of scheme://user:password@host.
var urlUserinfo = lazyRegexp(`(://[^/:@\s]*:)[^/@\s]+@`)

// redactArgv shows at most ArgvShown arguments of at most ArgvWidth
// bytes each, with values that look like secrets replaced: an option
// named like a secret ("--token X", "--password=X", "TOKEN=X"), a bearer
// header, a URL's password, known token shapes and long opaque strings.
func redactArgv(argv []string, more bool) []string {
	out := make([]string, 0, min(len(argv), verdict.ArgvShown)+1)
	secretNext := false
	var short shortSecret
	if len(argv) > 0 {
		short = shortSecretOf(argv[0])
	}
	for i, a := range argv {
		if i == verdict.ArgvShown {
			break
		}
		shown := a
		switch {
		case secretNext && i > 0:
			shown = Redacted
		case secretValue().MatchString(a) || (i > 0 && opaque(a)):
			shown = Redacted
		case i > 0 && short.flag != "" && len(a) > len(short.flag) && strings.HasPrefix(a, short.flag):
			shown = short.flag + Redacted
		default:
			shown = redactInside(a)
		}
		secretNext = (strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && secretName().MatchString(a)) ||
			(i > 0 && short.separate && a == short.flag)
		if len(shown) > verdict.ArgvWidth {
			shown = shown[:verdict.ArgvWidth-3] + "..."
		}
		out = append(out, shown)
	}
	if len(argv) > verdict.ArgvShown || more {
		out = append(out, "...")
	}
	return out
}

// redactInside redacts the secret parts of one argument: each token of a
// known shape, a bearer credential, or the whole value of a secret-named
// variable or header.
func redactInside(a string) string {
	a = tokenInside().ReplaceAllString(a, Redacted)
	if bearer().MatchString(a) {
		return bearer().ReplaceAllString(a, "${1}"+Redacted)
	}
	if name, value, ok := strings.Cut(a, "="); ok && value != "" && secretName().MatchString(name) {
		return name + "=" + Redacted
	}
	if name, value, ok := strings.Cut(a, ": "); ok && value != "" && secretName().MatchString(name) {
		return name + ": " + Redacted
	}
	return urlUserinfo().ReplaceAllString(a, "${1}"+Redacted+"@")
}

// shortSecret is a program's short option that takes a password: attached
// (mysql -pSECRET, where a separate "-p" prompts instead) or, when
// separate is set, also as the next argument (sshpass -p SECRET).
type shortSecret struct {
	flag     string
	separate bool
}

// shortSecretOf knows the programs whose password option is a short one
// a name check cannot see; elsewhere "-p" is a port or a flag (ssh -p22,
// mkdir -p, tar -pxf).
func shortSecretOf(program string) shortSecret {
	switch base := filepath.Base(program); {
	case strings.HasPrefix(base, "mysql"), strings.HasPrefix(base, "mariadb"):
		return shortSecret{flag: "-p"}
	case base == "sshpass":
		return shortSecret{flag: "-p", separate: true}
	case base == "redis-cli":
		return shortSecret{flag: "-a", separate: true}
	}
	return shortSecret{}
}
