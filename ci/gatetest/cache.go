package gatetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
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
// to the agent's directory) and the files its command names, and walks
// the agent's directory and each node_modules or site-packages tree that
// holds one of those files (an MCP server's dependencies), .git left
// out: it stats every file there and lists every directory, so that an
// added file counts too. The walk is needed: a check run's
// Observed.Files need not list every file the agent read (it was empty
// for a shell agent sourcing a file in its directory), and a run
// WithoutFiles observes none. It only stats and
// lists: it writes nothing and reads no file's contents; it walks no
// tree outside the module of the package under test. The go command
// rechecks only what lies inside the module (or GOROOT or GOPATH) of the
// package under test: a program or server installed outside it
// (/usr/bin/node, a global npm module) is not rechecked, which the docs
// say (docs/specs.md).
//
// Run and mcptest's Close call it; a spec that calls harness.Run itself
// calls it after the run. A nil r does nothing.
func NoteAgentFiles(agent harness.Agent, r *verdict.Result) {
	if r == nil {
		return
	}
	dir, err := filepath.Abs(agent.Dir)
	if err != nil {
		dir = ""
	}
	files := agentFiles(agent, r, dir)
	for _, p := range files {
		_, _ = os.Stat(p) // the test log records the name, whatever the answer
	}
	for _, d := range append([]string{dir}, packageTrees(files)...) {
		// The go command hashes the files when the test process has
		// exited: naming a tree once per process is enough, and a suite
		// of MCP specs walks its node_modules (4113 files in the suites',
		// about 0.2 s) once.
		if !inside(d, moduleRoot()) {
			continue // the go command would not recheck it: no walk of / or $HOME
		}
		if _, done := walkedTrees.LoadOrStore(d, true); !done {
			walkAgentDir(d)
		}
	}
}

// moduleRoot is the directory of the go.mod nearest above the test's
// working directory (the package's): the go command rechecks only files
// under it ("" when there is none).
var moduleRoot = sync.OnceValue(func() string {
	dir, err := filepath.Abs(".")
	if err != nil {
		return ""
	}
	return moduleRootOf(dir)
})

// inside reports whether dir is root or under it (both absolute).
func inside(dir, root string) bool {
	if dir == "" || root == "" {
		return false
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// walkedTrees are the directories walkAgentDir walked in this process.
var walkedTrees sync.Map

// packageTrees are the outermost node_modules or site-packages
// directories holding one of files (an MCP server's entry script): what
// it imports lies in them, and a check run need not list those reads.
func packageTrees(files []string) []string {
	var out []string
	for _, p := range files {
		elems := strings.Split(filepath.Clean(p), string(filepath.Separator))
		for i, e := range elems[:len(elems)-1] {
			if e == "node_modules" || e == "site-packages" {
				if d := strings.Join(elems[:i+1], string(filepath.Separator)); !slices.Contains(out, d) {
					out = append(out, d)
				}
				break
			}
		}
	}
	return out
}

// agentFiles are the absolute paths of the files r says the agent ran or
// touched, and the command's arguments that name files in dir.
func agentFiles(agent harness.Agent, r *verdict.Result, dir string) []string {
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
