package baseline

import (
	"regexp"
	"strings"
)

// tmpPattern writes a path under {tmp} (under: the part after "{tmp}/")
// for record. made are the names the run wrote, abstracted: the
// first name below {tmp} is the run's own when the run wrote that name
// itself (mkdir, or a create), and only then is anything generalised:
//   - the name, when it has the shape of a name a temporary-file call
//     draws at random (tempShapes), is written with that part as "?"s
//     ("tmpab12cd_x" becomes "tmp????????"), so the next run's directory
//     matches and another shape does not;
//   - a path inside such a directory becomes that directory's "/**".
//
// A path the run did not make stays literal: a key another process left
// in /tmp/x/ is not allowed by the run having read /tmp/y/z.
func tmpPattern(under string, made map[string]bool) string {
	top, _, deeper := strings.Cut(under, "/")
	if !made[phTmp+"/"+top] {
		return literalGlob(phTmp + "/" + under)
	}
	name := tempShape(top)
	if deeper {
		return phTmp + "/" + name + "/**"
	}
	return phTmp + "/" + name
}

// tempShapes are the names temporary-file calls draw, as a regexp whose
// group "rnd" is the random part and a glob that stands for it: Python's
// tempfile (prefix "tmp", 8 of [a-z0-9_], then its suffix), mkdtemp(3),
// mkstemp(3), mktemp(1) and node's fs.mkdtemp (a prefix ending in ".",
// "-" or "_", then 6 or more letters and digits), Go's os.MkdirTemp and
// os.CreateTemp (a prefix, then a decimal number of any length, so "*"),
// and gcc's and collect2's files ("cc", 6 letters and digits, then the
// kind: ccId21Co.s, ccNvkZoA.cdtor.c).
var tempShapes = []struct {
	re   *regexp.Regexp
	mask func(rnd string) string
}{
	{regexp.MustCompile(`^(?P<pre>tmp)(?P<rnd>[a-z0-9_]{8})(?P<post>.*)$`), sameLength},
	{regexp.MustCompile(`^(?P<pre>cc)(?P<rnd>[A-Za-z0-9]{6})(?P<post>\..+)$`), sameLength},
	{regexp.MustCompile(`^(?P<pre>.+[._-])(?P<rnd>[A-Za-z0-9]{6,})(?P<post>)$`), sameLength},
	{regexp.MustCompile(`^(?P<pre>.*[^0-9])(?P<rnd>[0-9]{6,})(?P<post>)$`), func(string) string { return "*" }},
}

func sameLength(rnd string) string { return strings.Repeat("?", len(rnd)) }

// tempShape writes a name the run made under {tmp} as a glob: its random
// part masked, or the name itself (literally) when it has no known shape.
func tempShape(name string) string {
	for _, s := range tempShapes {
		m := s.re.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		pre, rnd, post := m[s.re.SubexpIndex("pre")], m[s.re.SubexpIndex("rnd")], m[s.re.SubexpIndex("post")]
		return literalGlob("/" + pre)[1:] + s.mask(rnd) + literalGlob("/" + post)[1:]
	}
	return literalGlob("/" + name)[1:]
}
