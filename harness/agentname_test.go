package harness

import "testing"

func TestAgentNameIsNeverAnInterpreter(t *testing.T) {
	for _, tc := range []struct {
		cmd  []string
		dir  string
		want string
	}{
		{[]string{"python3", "agent.py"}, "/work/bot", "agent"},
		{[]string{"/root/.pyenv/shims/python3.11", "-X", "dev", "-u", "tools/triage.py", "--task", "x"}, "", "triage"},
		{[]string{"python3", "-m", "mybot.cli"}, "", "mybot"},
		{[]string{"python3", "-m", "triage"}, "", "triage"},
		{[]string{"python3", "-c", "print(1)"}, "/work/bot", "bot"},
		{[]string{"node", "-e", "0"}, "/srv/my-server", "my-server"},
		{[]string{"node", "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "."}, "", "server-filesystem"},
		{[]string{"node", "--require", "./hook.js", "server.mjs"}, "/x/mcp-notes", "mcp-notes"},
		{[]string{"/usr/bin/env", "LANG=C", "python3", "bot.py"}, "", "bot"},
		{[]string{"./agent.sh"}, "", "agent"},
		{[]string{"/usr/bin/git", "status"}, "", "git"},
		{[]string{"python3"}, "/", "python3"},
	} {
		if got := AgentName(Agent{Command: tc.cmd, Dir: tc.dir}); got != tc.want {
			t.Errorf("AgentName(%q in %q) = %q, want %q", tc.cmd, tc.dir, got, tc.want)
		}
	}
	if got := AgentName(Agent{Name: "named", Command: []string{"python3", "a.py"}}); got != "named" {
		t.Errorf("a set Name is kept: got %q", got)
	}
}
