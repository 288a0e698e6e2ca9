package harness

import (
	"testing"
)

func TestInterpreterScript(t *testing.T) {
	cases := []struct {
		program string
		argv    []string
		want    string
	}{
		{"/usr/bin/python3.11", []string{"python3", "-I", "-B", "/x/agent.py", "--workspace", "w"}, "/x/agent.py"},
		{"/usr/bin/python3.11", []string{"python3", "-W", "ignore", "agent.py"}, "agent.py"},
		{"/usr/bin/python3.11", []string{"python3", "-c", "print(1)"}, ""},
		{"/usr/bin/python3.11", []string{"python3", "-m", "http.server"}, ""},
		{"/usr/bin/python3.11", []string{"python3"}, ""},
		{"/usr/bin/node", []string{"node", "--require", "x.js", "server.js"}, "server.js"},
		{"/usr/bin/node", []string{"node", "-e", "1"}, ""},
		{"/usr/bin/dash", []string{"sh", "-c", "curl x"}, ""},
		{"/usr/bin/bash", []string{"bash", "-e", "build.sh"}, "build.sh"},
		{"/usr/bin/bash", []string{"bash", "--", "run.sh"}, "run.sh"},
		{"/usr/bin/curl", []string{"curl", "x.sh"}, ""},
	}
	for _, c := range cases {
		if got := interpreterScript(c.program, c.argv); got != c.want {
			t.Errorf("interpreterScript(%s, %q) = %q, want %q", c.program, c.argv, got, c.want)
		}
	}
}

func TestShebangInterpreter(t *testing.T) {
	cases := map[string]string{
		"#!/bin/sh\necho":              "/bin/sh",
		"#! /usr/bin/env python3 -u\n": "/usr/bin/env",
		"#!\n":                         "",
		"\x7fELF":                      "",
		"#!/bin/bash":                  "/bin/bash",
	}
	for head, want := range cases {
		if got := shebangInterpreter([]byte(head)); got != want {
			t.Errorf("shebangInterpreter(%q) = %q, want %q", head, got, want)
		}
	}
}
