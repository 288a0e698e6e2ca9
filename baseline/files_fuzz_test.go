package baseline

import (
	"testing"
	"unicode/utf8"
)

// FuzzFilesEntry drives one files glob through the parser, the writer and
// the matcher: no panic; an accepted glob formats back to itself, matches
// its own probes when it is not sensitive, and a matcher built from it
// answers for any path.
func FuzzFilesEntry(f *testing.F) {
	for _, s := range []string{"/etc/hosts", "{workspace}/**", "{runtime}/lib/*.so.?", "/", "{tmp}", "/a/**/b/**", "x", "/a/../b", "{x}/y", "/a b/#c", "/a/\"q\"", "/é/日本", "{home}/.ssh/id_rsa", "/**/x"} {
		f.Add(s, "read", "/etc/hosts")
	}
	f.Fuzz(func(t *testing.T, glob, op, probe string) {
		if !utf8.ValidString(glob) {
			return // only a Document built in code holds one; Format writes U+FFFD
		}
		doc := &Document{Version: FormatVersion, HasFiles: true, Files: []FileEntry{{Pattern: glob, Op: FileRead, Reason: "r"}}}
		if o, ok := ParseFileOp(op); ok {
			doc.Files[0].Op = o
		}
		out := doc.Format()
		back, errs := parseDocument("f.yaml", out)
		if hasErrors(errs) {
			if globProblem(glob) == "" && glob != "" && !hasRepo(glob) {
				t.Fatalf("glob %q: valid, but its file does not parse: %v\n%s", glob, errs, out)
			}
			return
		}
		if len(back.Files) != 1 || back.Files[0].Pattern != glob {
			t.Fatalf("glob %q came back as %+v:\n%s", glob, back.Files, out)
		}
		m := newFileMatcher(back.Files, FileContext{Workspace: "/w", Home: "/h", Tmp: "/tmp", Runtime: []string{"/r", "/s"}})
		m.Allows(probe, back.Files[0].Op)
		m.Explain(probe, back.Files[0].Op)
		SensitivePath(FileContext{Home: "/h"}, probe, back.Files[0].Op)
		for _, pr := range probes(glob) {
			if !compileGlob(glob).match(splitPath(pr)) {
				t.Fatalf("glob %q does not match its own probe %q", glob, pr)
			}
		}
	})
}

func hasRepo(glob string) bool { return len(glob) >= len(phRepo) && glob[:len(phRepo)] == phRepo }
