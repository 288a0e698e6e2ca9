package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportSPO(t *testing.T) {
	code, out, errOut := run(t, "export", "spo", "-b", td+"agent.yaml", "--namespace", "agents")
	if code != ExitOK {
		t.Fatalf("export spo: code %d %s", code, errOut)
	}
	goldenFile(t, "export-spo.yaml", out)
	if !strings.Contains(out, "\n  name: demo\n") {
		t.Errorf("the agent's name is not the default name:\n%s", out)
	}
	// Without an agent name: the first file's name.
	path := filepath.Join(t.TempDir(), "profile.yaml")
	if code, _, errOut := run(t, "export", "spo", "-b", td+"base.yaml", "--default-action", "log", "-o", path); code != ExitOK {
		t.Fatalf("export -o: code %d %s", code, errOut)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "\n  name: base\n") || !strings.Contains(string(data), "defaultAction: SCMP_ACT_LOG\n") {
		t.Errorf("profile without an agent:\n%s", data)
	}
	if code, out, _ := run(t, "export", "spo", "-b", td+"agent.yaml", "--name", "team.demo-v2"); code != ExitOK || !strings.Contains(out, "\n  name: team.demo-v2\n") {
		t.Errorf("--name: code %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--name", "Demo_Agent"}, `metadata.name: "Demo_Agent" is not a DNS-1123 subdomain`},
		{[]string{"--namespace", "team.a"}, `e.g. "team-a"`},
		{[]string{"--default-action", "trap"}, "--default-action"},
		{[]string{"--errno", "ENOSYS"}, "flag provided but not defined: -errno"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		code, _, errOut := run(t, append([]string{"export", "spo", "-b", td + "agent.yaml"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.err) {
			t.Errorf("%v: code %d stderr %q, want %q", c.args, code, errOut, c.err)
		}
	}
	if code, _, _ := run(t, "export", "spo"); code != ExitUsage {
		t.Errorf("no -b: code %d", code)
	}
	if code, out, _ := run(t, "export", "spo", "-b", td+"invalid.yaml"); code != ExitUsage || !strings.Contains(out, "invalid.yaml:7: unknown syscall") {
		t.Errorf("invalid baseline: code %d findings %q", code, out)
	}
}
