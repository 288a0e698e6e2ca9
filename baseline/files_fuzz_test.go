package baseline

import (
	"strings"
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

// FuzzGeneraliseFiles: whatever paths a run touched, what record writes
// validates and allows every one of them again.
func FuzzGeneraliseFiles(f *testing.F) {
	f.Add("/etc/hosts\n/w/a\n/w/b/c\n/tmp/x\n/home/u/.ssh/id_rsa\n/proc/41/status", uint8(1))
	f.Add("/a/b/1\n/a/b/2\n/a/b/3\n/a/b/4\n/a/c/*\n/a/{x}\n/a/b/\x01", uint8(2))
	f.Add("/\n/x\n/home/u\n/home/u/.bashrc\n/etc/cron.d/a\n/etc/cron.d/b\n/etc/cron.d/c\n/etc/cron.d/d", uint8(2))
	f.Fuzz(func(t *testing.T, list string, op uint8) {
		ctx := FileContext{Workspace: "/w", Home: "/home/u", Tmp: "/tmp", Runtime: []string{"/rt"}, PIDs: []int{41}}
		o := FileOp(op%4) + FileRead
		var seen []ObservedFile
		for _, p := range strings.Split(list, "\n") {
			if p = cleanObserved(p); p != "" && utf8.ValidString(p) && !strings.HasPrefix(p, "{") {
				seen = append(seen, ObservedFile{Path: p, Op: o, Count: 1})
			}
		}
		entries := GeneraliseFiles(ctx, seen)
		out := (&Document{Version: FormatVersion, HasFiles: true, Files: entries}).Format()
		doc, err := ParseDocument("f.yaml", out)
		if err != nil {
			t.Fatalf("generated section does not validate: %v\n%s", err, out)
		}
		m := newFileMatcher(doc.Files, ctx)
		for _, s := range seen {
			if p := ownProcPath(ctx.PIDs, s.Path); !m.Allows(p, s.Op) && !m.Allows(s.Path, s.Op) {
				t.Fatalf("%s %s not allowed by\n%s", s.Op, s.Path, out)
			}
		}
	})
}
