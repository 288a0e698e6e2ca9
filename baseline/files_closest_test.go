package baseline

import "testing"

// The entry named beside a refused access is a related one, or none:
// issue 46 printed "/etc/gitconfig: read" beside a read of /etc/passwd.
func TestClosestNamesOnlyRelatedEntries(t *testing.T) {
	var entries []FileEntry
	for _, e := range []struct {
		pattern string
		op      FileOp
	}{
		{"/etc/gitconfig", FileRead},
		{"/usr/lib/node/libfoo.so", FileRead},
		{"{workspace}/docs/**", FileRead},
		{"{workspace}/src/a.py", FileWrite},
		{"{workspace}/gen/**/*.py", FileWrite},
		{"/tmp/cache/**", FileWrite},
	} {
		entries = append(entries, FileEntry{Pattern: e.pattern, Op: e.op})
	}
	m := newFileMatcher(entries, symbolic)
	for _, c := range []struct {
		path string
		op   FileOp
		want string // "" for no suggestion
	}{
		{"/etc/passwd", FileRead, ""},
		{"/usr/lib/node/libbar.so", FileRead, "/usr/lib/node/libfoo.so: read"},
		{"{workspace}/docs/x", FileWrite, "{workspace}/docs/**: read"},
		{"{workspace}/src/b.py", FileWrite, "{workspace}/src/a.py: write"},
		{"{workspace}/gen/a/b.txt", FileWrite, "{workspace}/gen/**/*.py: write"},
		{"/tmp/other", FileWrite, ""},
		{"/root/.ssh/id_rsa", FileRead, ""},
	} {
		e, ok := m.Closest(c.path, c.op)
		got := ""
		if ok {
			got = e.String()
		}
		if got != c.want {
			t.Errorf("Closest(%s %s) = %q; want %q", c.op, c.path, got, c.want)
		}
	}
	if got := m.Explain("/etc/passwd", FileRead); got != "not in the baseline" {
		t.Errorf("Explain(read /etc/passwd) = %q; want no neighbour named", got)
	}
}
