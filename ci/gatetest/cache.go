package gatetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/harness"
)

// NoteAgentFiles tells Go's test cache which files the run's agent used,
// so that `go test` runs a spec again once one of them changed, instead of
// printing "ok ... (cached)" for an agent that is not the one that
// passed. The go command keys a cached result on the files the test
// process itself opened or stat'ed (through the os package's test log);
// the agent reads its files in processes of its own, so without this the
// cache sees none of them.
//
// It stats each file the run says its processes executed or touched
// (Programs, Observed.Programs, Observed.Files with {workspace} expanded
// to the agent's directory) and the command's own files, and every file
// under the agent's directory (.git left out), opening each directory
// there so that a file added to it counts too: a check run's
// Observed.Files need not list what the agent read (one whose baselines
// have no files section lists none), and a run WithoutFiles observes
// nothing. It only stats and lists: it writes nothing and never reads a
// file's contents. The go command rechecks only what lies inside the
// module (or GOROOT or GOPATH) of the package under test: a program or
// server installed outside it (/usr/bin/node, a global npm module) is
// not rechecked, which the docs say (docs/specs.md).
//
// Run and mcptest's Close call it; a spec that calls harness.Run itself
// calls it after the run. A nil r does nothing.
func NoteAgentFiles(agent harness.Agent, r *harness.Result) {
	if r == nil {
		return
	}
	dir, err := filepath.Abs(agent.Dir)
	if err != nil {
		dir = ""
	}
	for _, p := range agentFiles(agent, r, dir) {
		_, _ = os.Stat(p) // the test log records the name, whatever the answer
	}
	if dir != "" {
		walkAgentDir(dir)
	}
}

// agentFiles are the absolute paths of the files r says the agent ran or
// touched, and the command's arguments that name files in dir.
func agentFiles(agent harness.Agent, r *harness.Result, dir string) []string {
	var out []string
	add := func(p string) {
		switch {
		case p == "" || r.Root != "":
			// An own root file system's paths are not the host's.
		case strings.HasPrefix(p, "{workspace}"):
			if dir != "" {
				out = append(out, dir+strings.TrimPrefix(p, "{workspace}"))
			}
		case filepath.IsAbs(p):
			out = append(out, p)
		}
	}
	for _, pr := range r.Programs {
		add(pr.Path)
	}
	if r.Observed != nil {
		for p := range r.Observed.Programs {
			add(p)
		}
		for p := range r.Observed.Files {
			add(p)
		}
	}
	for _, arg := range agent.Command {
		if arg == "" || strings.HasPrefix(arg, "-") {
			continue
		}
		p := arg
		if !filepath.IsAbs(p) {
			if dir == "" {
				continue
			}
			p = filepath.Join(dir, p)
		}
		if info, err := os.Lstat(p); err == nil && !info.IsDir() {
			add(p)
		}
	}
	return out
}

// walkAgentDir lists every directory under dir and stats every file in
// it: what the agent could have read without the run listing it.
func walkAgentDir(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			// WalkDir opens it to list it: the go command then hashes
			// its entries, so a file added there counts too.
			return nil
		}
		_, _ = os.Stat(p)
		return nil
	})
}
