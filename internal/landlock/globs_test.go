package landlock

import (
	"reflect"
	"testing"
)

func TestRulesFromGlobs(t *testing.T) {
	globs := []FileGlob{
		{Glob: "/home/u/ws/**", Read: true, Write: true},
		{Glob: "/usr/lib/python3.11/**", Read: true},
		{Glob: "/etc/ld.so.cache", Read: true},
		{Glob: "/usr/lib/x86_64-linux-gnu/*.so*", Exec: true},
		{Glob: "**/.env", Read: true},
		{Glob: "/tmp/*", Write: true},
		{Glob: "/home/u/ws/*/build/**", Delete: true},
		{Glob: "/usr/lib/python3.11", Exec: true},
		{Glob: "/proc/self/**", Read: true},
		{Glob: "/proc/thread-self/comm", Write: true},
		{Glob: "/proc/self", Read: true},
		{Glob: "/proc/1/root/**", Read: true},
		{Glob: "/proc/net/dev", Read: true},
		{Glob: "/proc/cpuinfo", Read: true},
	}
	rules, wide := RulesFromGlobs(globs)
	wantRules := []PathRule{
		{Path: "/home/u/ws", Read: true, Write: true, Delete: true},
		{Path: "/usr/lib/python3.11", Read: true, Exec: true},
		{Path: "/etc/ld.so.cache", Read: true},
		{Path: "/usr/lib/x86_64-linux-gnu", Read: true, Exec: true},
		{Path: "/", Read: true},
		{Path: "/tmp", Write: true},
		{Path: "/proc", Read: true, Write: true},
		{Path: "/proc/cpuinfo", Read: true},
	}
	if !reflect.DeepEqual(rules, wantRules) {
		t.Errorf("rules\n got %+v\nwant %+v", rules, wantRules)
	}
	wantWide := []Widening{
		{Glob: "/usr/lib/x86_64-linux-gnu/*.so*", Granted: "/usr/lib/x86_64-linux-gnu", Reason: WideMeta},
		{Glob: "**/.env", Granted: "/", Reason: WideNoPrefix},
		{Glob: "/tmp/*", Granted: "/tmp", Reason: WideOneLevel},
		{Glob: "/home/u/ws/*/build/**", Granted: "/home/u/ws", Reason: WideMeta},
		{Glob: "/proc/self/**", Granted: "/proc", Reason: WideProcSelf},
		{Glob: "/proc/thread-self/comm", Granted: "/proc", Reason: WideProcSelf},
		{Glob: "/proc/self", Granted: "/proc", Reason: WideProcSelf},
		// Never the process's root, which the link would open.
		{Glob: "/proc/1/root/**", Granted: "/proc", Reason: WideProcSelf},
		{Glob: "/proc/net/dev", Granted: "/proc", Reason: WideProcSelf},
	}
	if !reflect.DeepEqual(wide, wantWide) {
		t.Errorf("widenings\n got %+v\nwant %+v", wide, wantWide)
	}
}

func TestLiteralPrefixCleans(t *testing.T) {
	for glob, want := range map[string]string{
		"/a/b/../c/**": "/a/c",
		"/a//b/":       "/a/b",
		"a/b":          "/a/b",
		"/":            "/",
		"/a/[bc]/d":    "/a",
		"/a/{b,c}/**":  "/a",
	} {
		if got, _ := literalPrefix(glob); got != want {
			t.Errorf("literalPrefix(%q) = %q, want %q", glob, got, want)
		}
	}
}

func TestProcRules(t *testing.T) {
	rules := []PathRule{
		{Path: "/proc", Read: true},
		{Path: "/proc/cpuinfo", Read: true, Delete: true},
		{Path: "/procx", Read: true},
		{Path: "/usr/lib", Read: true},
	}
	got := ProcRules(3, rules)
	want := []ProcRule{
		{Path: "/proc", Access: readRights},
		// A file takes only a file's rights.
		{Path: "/proc/cpuinfo", Access: readRights & fileRights},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ProcRules\n got %+v\nwant %+v", got, want)
	}
}
