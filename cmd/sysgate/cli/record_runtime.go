//go:build linux

package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/harness"
)

// runtimeStart is what record --runtime runs: an interpreter starting,
// loading the standard modules servers and tools of that runtime load,
// and answering one line of stdin on stdout (the
// stdio round trip an MCP server makes), then exiting. An agent's own
// baseline extends the layer, so only what the agent does beyond its
// runtime's start is the agent's.
type runtimeStart struct {
	program string // looked up on PATH unless -- PROGRAM names another
	args    []string
	what    string // for the file's header
}

var runtimeStarts = map[string]runtimeStart{
	"node": {program: "node", args: []string{"-e", strings.Join([]string{
		`const fs = require("fs"), path = require("path"), os = require("os"), crypto = require("crypto"),`,
		`  events = require("events"), stream = require("stream"), url = require("url"), util = require("util"), readline = require("readline");`,
		`os.homedir(); crypto.randomUUID();`,
		`const rl = readline.createInterface({ input: process.stdin });`,
		`rl.on("line", (line) => process.stdout.write(line + "\n"));`,
		`rl.on("close", () => setTimeout(() => process.exit(0), 1));`,
	}, "\n")}, what: "Node.js starting, loading fs, path, os, crypto, events, stream, url, util and readline, answering a line of stdin on stdout, and exiting"},
	"python": {program: "python3", args: []string{"-c", strings.Join([]string{
		`import asyncio, datetime, json, logging, os, pathlib, re, sys, typing, uuid`,
		`uuid.uuid4()`,
		`for line in sys.stdin: sys.stdout.write(json.dumps(json.loads(line)) + "\n")`,
	}, "\n")}, what: "CPython starting, loading asyncio, datetime, json, logging, os, pathlib, re, typing and uuid, answering a line of stdin on stdout, and exiting"},
}

// runtimeAliases are the other names a runtime is known by.
var runtimeAliases = map[string]string{"python3": "python", "nodejs": "node"}

func runtimeNames() string {
	names := make([]string, 0, len(runtimeStarts))
	for n := range runtimeStarts {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// runtimeAgent is the agent record --runtime NAME runs; args are what
// followed "--": nothing, or the one interpreter to use instead of the
// one on PATH.
// The header says how to regenerate out and how an agent extends it.
func (c *Command) runtimeAgent(f *runFlags, name, out string, args []string) (harness.Agent, string, error) {
	if alias, ok := runtimeAliases[name]; ok {
		name = alias
	}
	rt, ok := runtimeStarts[name]
	if !ok {
		return harness.Agent{}, "", fmt.Errorf("--runtime %s: want one of %s", name, runtimeNames())
	}
	program := rt.program
	switch len(args) {
	case 0:
	case 1:
		program = args[0]
	default:
		return harness.Agent{}, "", fmt.Errorf("--runtime %s: after -- give only the interpreter to record (e.g. -- /opt/node/bin/node), not a command line: the runtime layer is its start alone", name)
	}
	a := c.agent(f, append([]string{program}, slices.Clone(rt.args)...), false)
	if a.Name == "" {
		a.Name = "runtime-" + name
	}
	a.Stdin = &replayStdin{line: `{"jsonrpc": "2.0", "id": 1, "method": "ping"}` + "\n"}
	a.Stdout = io.Discard
	header := fmt.Sprintf("sysgate baseline: reviewed in pull requests. Regenerate with `sysgate record --runtime %s -o %s`.\n"+
		"Runtime layer: %s, recorded on this machine.\n"+
		"Agents' baselines extend it (sysgate record --extends %s -o AGENT.yaml -- CMD), so a runtime update is one diff here.",
		name, filepath.ToSlash(out), rt.what, filepath.ToSlash(out))
	return a, header, nil
}

// replayStdin gives every run of a record the same stdin: the line,
// then the end of input, then the line again for the next run (record
// runs one Agent several times; a strings.Reader would be empty from
// the second run on, and the runs would differ in what they read).
type replayStdin struct {
	line string
	off  int
}

func (r *replayStdin) Read(p []byte) (int, error) {
	if r.off >= len(r.line) {
		r.off = 0
		return 0, io.EOF
	}
	n := copy(p, r.line[r.off:])
	r.off += n
	return n, nil
}
