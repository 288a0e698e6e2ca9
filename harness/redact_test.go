package harness

import (
	"slices"
	"strings"
	"testing"
)

func TestRedactArgv(t *testing.T) {
	cases := []struct {
		in, want []string
	}{
		{[]string{"curl", "-s", "http://127.0.0.1:8080/x"}, []string{"curl", "-s", "http://127.0.0.1:8080/x"}},
		{[]string{"curl", "-H", "Authorization: Bearer abc.def"}, []string{"curl", "-H", "Authorization: Bearer " + Redacted}},
		{[]string{"curl", "-H", "X-Api-Key: 1234"}, []string{"curl", "-H", "X-Api-Key: " + Redacted}},
		{[]string{"tool", "--token", "hunter2", "--verbose"}, []string{"tool", "--token", Redacted, "--verbose"}},
		{[]string{"tool", "--password=hunter2"}, []string{"tool", "--password=" + Redacted}},
		{[]string{"env", "GITHUB_TOKEN=ghp_x", "sh"}, []string{"env", "GITHUB_TOKEN=" + Redacted, "sh"}},
		{[]string{"git", "clone", "https://me:s3cret@example.com/r.git"}, []string{"git", "clone", "https://me:" + Redacted + "@example.com/r.git"}},
		{[]string{"x", "ghp_abcdefghijklmnopqrstuvwxyz0123"}, []string{"x", Redacted}},
		{[]string{"x", "sk-abcdefghijklmnop1234"}, []string{"x", Redacted}},
		{[]string{"x", strings.Repeat("a1B2", 12)}, []string{"x", Redacted}},
		// Paths and ordinary words stay.
		{[]string{"/usr/bin/python3", "-I", "-B", "/work/suites/agents/python/agent.py"}, []string{"/usr/bin/python3", "-I", "-B", "/work/suites/agents/python/agent.py"}},
		{[]string{"sh", "-c", "echo hi"}, []string{"sh", "-c", "echo hi"}},
		{[]string{"agent", "--workspace", "/tmp/sysgate-suites-12204-1256031436/workspace-1461817168"}, []string{"agent", "--workspace", "/tmp/sysgate-suites-12204-1256031436/workspace-1461817168"}},
	}
	for _, c := range cases {
		if got := redactArgv(c.in, false); !slices.Equal(got, c.want) {
			t.Errorf("redactArgv(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRedactArgvBounds(t *testing.T) {
	long := []string{"a", strings.Repeat("x y ", 40), "3", "4", "5", "6", "7", "8", "9"}
	got := redactArgv(long, false)
	if len(got) != ArgvShown+1 || got[ArgvShown] != "..." {
		t.Fatalf("got %d args %q, want %d and a trailing ...", len(got), got, ArgvShown+1)
	}
	if len(got[1]) != ArgvWidth || !strings.HasSuffix(got[1], "...") {
		t.Errorf("long arg = %q (%d bytes), want %d bytes ending in ...", got[1], len(got[1]), ArgvWidth)
	}
	if got := redactArgv([]string{"a"}, true); !slices.Equal(got, []string{"a", "..."}) {
		t.Errorf("more = %q", got)
	}
}
