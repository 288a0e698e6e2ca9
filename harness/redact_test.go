package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/verdict"
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
		// A password attached to its short option (mysql -pSECRET); the
		// same letter elsewhere stays (issue 32, item 8).
		{[]string{"mysql", "-uroot", "-phunter2", "db"}, []string{"mysql", "-uroot", "-p" + Redacted, "db"}},
		{[]string{"/usr/bin/mysqldump", "-phunter2"}, []string{"/usr/bin/mysqldump", "-p" + Redacted}},
		{[]string{"mariadb", "--user=x", "-ps3cr3t"}, []string{"mariadb", "--user=x", "-p" + Redacted}},
		{[]string{"sshpass", "-phunter2", "ssh", "host"}, []string{"sshpass", "-p" + Redacted, "ssh", "host"}},
		{[]string{"redis-cli", "-a", "hunter2"}, []string{"redis-cli", "-a", Redacted}},
		{[]string{"ssh", "-p2222", "host"}, []string{"ssh", "-p2222", "host"}},
		{[]string{"tar", "-pxf", "a.tar"}, []string{"tar", "-pxf", "a.tar"}},
		{[]string{"mkdir", "-p", "a/b"}, []string{"mkdir", "-p", "a/b"}},
		// A token inside code: only the token goes.
		{[]string{"python3", "-c", "t='ghp_abcdefghijklmnopqrstuvwxyz0123'; print(t)"},
			[]string{"python3", "-c", "t='" + Redacted + "'; print(t)"}},
		{[]string{"node", "-e", `fetch(u,{headers:{Authorization:"Bearer abc.def-123"}}).then(r=>r.text())`},
			[]string{"node", "-e", `fetch(u,{headers:{Authorization:"Bearer ` + Redacted + `"}}).then(r=>r.text())`}},
		{[]string{"sh", "-c", "curl -s -H 'X: token gho_abcdefghijklmnopqrstuvwxyz0123' $U"},
			[]string{"sh", "-c", "curl -s -H 'X: token " + Redacted + "' $U"}},
		// A secret-named header or variable still takes the rest.
		{[]string{"sh", "-c", "curl -H 'Authorization: token gho_abcdefghijklmnopqrstuvwxyz0123' $U"}, []string{"sh", "-c", "curl -H 'Authorization: " + Redacted}},
		{[]string{"python3", "-c", "openai.api_key=\"sk-abcdefghijklmnop1234\"; go()"}, []string{"python3", "-c", "openai.api_key=" + Redacted}},
		{[]string{"sh", "-c", "export K=AKIAABCDEFGHIJKLMNOP; aws s3 ls"}, []string{"sh", "-c", "export K=" + Redacted + "; aws s3 ls"}},
		{[]string{"sh", "-c", "SLACK=xoxb-1234567890-abcdef run"}, []string{"sh", "-c", "SLACK=" + Redacted + " run"}},
		{[]string{"python3", "-c", "client(key=\"sk-abcdefghijklmnop1234\"); go()"}, []string{"python3", "-c", "client(key=\"" + Redacted + "\"); go()"}},
		{[]string{"node", "-e", "x='eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl'"}, []string{"node", "-e", "x='" + Redacted + "'"}},
		{[]string{"sh", "-c", "echo github_pat_11ABCDEFG0123456789_abcdefghij | gh auth login --with-token"},
			[]string{"sh", "-c", "echo " + Redacted + " | gh auth login --with-token"}},
		{[]string{"sh", "-c", "x=ghs_abcdefghijklmnopqrstuvwxyz0123 y=ghu_abcdefghijklmnopqrstuvwxyz0123"},
			[]string{"sh", "-c", "x=" + Redacted + " y=" + Redacted}},
		// Words that merely contain a prefix stay.
		{[]string{"sh", "-c", "make task-runner-for-everything-here && ls disk-usage-report-of-today"},
			[]string{"sh", "-c", "make task-runner-for-everything-here && ls disk-usage-report-of-today"}},
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
	if len(got) != verdict.ArgvShown+1 || got[verdict.ArgvShown] != "..." {
		t.Fatalf("got %d args %q, want %d and a trailing ...", len(got), got, verdict.ArgvShown+1)
	}
	if len(got[1]) != verdict.ArgvWidth || !strings.HasSuffix(got[1], "...") {
		t.Errorf("long arg = %q (%d bytes), want %d bytes ending in ...", got[1], len(got[1]), verdict.ArgvWidth)
	}
	if got := redactArgv([]string{"a"}, true); !slices.Equal(got, []string{"a", "..."}) {
		t.Errorf("more = %q", got)
	}
}
