// Command schedvary records real agents many times, on both backends, idle
// and beside CPU hogs, and prints which syscalls appear in some runs of an
// agent but not in all: the data behind the built-in scheduling group
// (package baseline/scheduling, docs/scheduling.md).
//
//	sudo go run ./cmd/schedvary -runs 100 -out ../docs/data/schedvary.tsv
//
// Each round records every agent once per backend (record mode, the agent
// as -user); rounds run in blocks of ten, idle and beside -hogs busy loops
// by turns (child processes of this command, killed when the block ends).
// The TSV is rewritten after every round: a run stopped early keeps its
// data. A run that
// is inconclusive or whose agent failed is counted and left out. It needs
// root (audit; the notify backend is forced), node with the suites' npm
// modules (make deps-suites), python3, git and go.
//
// Output: a summary of the varying syscalls per agent on stdout, and with
// -out a TSV: agent, backend, load, runs, syscall, runs that made it; one
// row per syscall that some but not every run of that agent made, plus a
// "(runs)" row per condition with the conclusive and excluded counts.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/ci/mcptest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

func main() {
	runs := flag.Int("runs", 100, "runs per agent and backend (half of them beside the hogs)")
	hogs := flag.Int("hogs", 2, "busy loops beside the second half of the runs")
	only := flag.String("agents", "", "comma-separated agents to run (default all: "+strings.Join(agentNames(), ", ")+")")
	backends := flag.String("backends", "audit,notify", "backends to record on")
	uid := flag.Uint("user", 65534, "uid (and gid) the agents run as")
	out := flag.String("out", "", "TSV file for the varying syscalls")
	python := flag.String("python", "/usr/bin/python3", "the Python interpreter (one -user can run: not under /root)")
	flag.Parse()
	cfg := config{runs: *runs, hogs: *hogs, only: *only, backends: *backends, uid: uint32(*uid), out: *out, python: *python}
	if err := run(context.Background(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "schedvary:", err)
		os.Exit(1)
	}
}

type config struct {
	runs, hogs    int
	only          string
	backends, out string
	python        string
	uid           uint32
}

// condition is one cell of the table: an agent on a backend, idle or loaded.
type condition struct {
	agent, backend string
	loaded         bool
}

// tally counts one condition's runs and, per syscall, the runs that made it.
type tally struct {
	runs, excluded int
	seen           map[string]int
	why            []string // first few reasons for exclusions
}

func run(ctx context.Context, cfg config) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("run as root: the audit backend needs it")
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	env, err := newEnvironment(root, cfg.python)
	if err != nil {
		return err
	}
	defer env.close()
	agents := env.agents()
	if cfg.only != "" {
		keep := map[string]bool{}
		for _, a := range strings.Split(cfg.only, ",") {
			keep[strings.TrimSpace(a)] = true
		}
		var picked []agent
		for _, a := range agents {
			if keep[a.name] {
				picked = append(picked, a)
				delete(keep, a.name)
			}
		}
		if len(keep) > 0 {
			return fmt.Errorf("-agents: unknown %v (known: %s)", keys(keep), strings.Join(agentNames(), ", "))
		}
		agents = picked
	}
	var bs []verdict.Backend
	for _, b := range strings.Split(cfg.backends, ",") {
		bs = append(bs, verdict.Backend(strings.TrimSpace(b)))
	}
	tallies := map[condition]*tally{}
	start := time.Now()
	// SIGINT or SIGTERM ends the run after the current round, with the
	// report of the rounds done.
	interrupted, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	stop := func() {}
	defer func() { stop() }()
	for round := 0; round < cfg.runs && interrupted.Err() == nil; round++ {
		// Blocks of ten rounds, idle and loaded by turns, so that a
		// stopped run still has both.
		loaded := cfg.hogs > 0 && (round/10)%2 == 1
		if loaded && round%10 == 0 {
			if stop, err = startHogs(cfg.hogs); err != nil {
				return err
			}
		}
		if !loaded && round%10 == 0 {
			stop()
			stop = func() {}
		}
		for _, a := range agents {
			for _, b := range bs {
				c := condition{a.name, string(b), loaded}
				t := tallies[c]
				if t == nil {
					t = &tally{seen: map[string]int{}}
					tallies[c] = t
				}
				names, err := a.record(ctx, env, b, cfg.uid)
				if err != nil {
					t.excluded++
					if len(t.why) < 3 {
						t.why = append(t.why, err.Error())
					}
					continue
				}
				t.runs++
				for _, n := range names {
					t.seen[n]++
				}
			}
		}
		fmt.Fprintf(os.Stderr, "schedvary: round %d of %d done (%s, %s)\n", round+1, cfg.runs, loadWord(loaded), time.Since(start).Round(time.Second))
		// The table so far, so a run stopped early keeps its data.
		if err := report(io.Discard, tallies, cfg.out); err != nil {
			return err
		}
	}
	return report(os.Stdout, tallies, cfg.out)
}

func loadWord(loaded bool) string {
	if loaded {
		return "loaded"
	}
	return "idle"
}

// report prints, per agent, the syscalls some but not all of its runs
// made (over every condition), with each condition's count.
func report(w io.Writer, tallies map[condition]*tally, out string) error {
	byAgent := map[string][]condition{}
	for c := range tallies {
		byAgent[c.agent] = append(byAgent[c.agent], c)
	}
	var rows []string
	for _, name := range sortedKeys(byAgent) {
		conds := byAgent[name]
		sort.Slice(conds, func(i, j int) bool {
			if conds[i].backend != conds[j].backend {
				return conds[i].backend < conds[j].backend
			}
			return !conds[i].loaded && conds[j].loaded
		})
		total, seen := 0, map[string]int{}
		for _, c := range conds {
			t := tallies[c]
			total += t.runs
			for n, k := range t.seen {
				seen[n] += k
			}
			rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%d\t(runs)\t%d excluded%s", c.agent, c.backend, loadWord(c.loaded), t.runs, t.excluded, whyText(t.why)))
			fmt.Fprintf(w, "%s %s %s: %d conclusive runs, %d excluded %v\n", c.agent, c.backend, loadWord(c.loaded), t.runs, t.excluded, t.why)
		}
		var varying []string
		for _, n := range sortedKeys(seen) {
			if seen[n] < total {
				varying = append(varying, n)
			}
		}
		fmt.Fprintf(w, "%s: %d runs, %d syscalls, varying:", name, total, len(seen))
		for _, n := range varying {
			fmt.Fprintf(w, " %s", n)
			for _, c := range conds {
				t := tallies[c]
				rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%d\t%s\t%d", c.agent, c.backend, loadWord(c.loaded), t.runs, n, t.seen[n]))
			}
		}
		fmt.Fprintln(w)
		for _, n := range varying {
			fmt.Fprintf(w, "  %-22s", n)
			for _, c := range conds {
				fmt.Fprintf(w, " %s/%s %d/%d", c.backend, loadWord(c.loaded), tallies[c].seen[n], tallies[c].runs)
			}
			fmt.Fprintln(w)
		}
	}
	if out == "" {
		return nil
	}
	tmp := out + ".tmp"
	text := "agent\tbackend\tload\truns\tsyscall\truns_with_syscall\n" + strings.Join(rows, "\n") + "\n"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// whyText is the first exclusions' reasons for the TSV, on one line.
func whyText(why []string) string {
	if len(why) == 0 {
		return ""
	}
	return ": " + strings.Join(strings.Fields(strings.Join(why, " | ")), " ")
}

// startHogs starts n busy loops and returns what kills them.
func startHogs(n int) (func(), error) {
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("start CPU hog: %w", err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// environment holds what every agent needs: the repository, the Go
// agent's binary, a loopback HTTP server.
type environment struct {
	root, tmp, goagent string
	python, node       string
	server             *httptest.Server
}

func newEnvironment(root, python string) (*environment, error) {
	e := &environment{root: root}
	var err error
	if e.python, err = filepath.EvalSymlinks(python); err != nil {
		return nil, err
	}
	if e.node, err = exec.LookPath("node"); err != nil {
		return nil, err
	}
	if e.tmp, err = os.MkdirTemp("", "schedvary-"); err != nil {
		return nil, err
	}
	if err := os.Chmod(e.tmp, 0o755); err != nil {
		return nil, err
	}
	e.goagent = filepath.Join(e.tmp, "goagent")
	build := exec.Command("go", "build", "-o", e.goagent, "./agents/goagent")
	build.Dir = filepath.Join(root, "suites")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build goagent: %w: %s", err, msg)
	}
	e.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "page\n")
	}))
	return e, nil
}

func (e *environment) close() {
	e.server.Close()
	_ = os.RemoveAll(e.tmp)
}

// workspace makes a fresh committed git project owned by uid, as the
// suites' fixture does.
func (e *environment) workspace(uid uint32) (string, error) {
	ws, err := os.MkdirTemp(e.tmp, "ws-")
	if err != nil {
		return "", err
	}
	files := map[string]string{
		"README.md":  "# demo\n\nA small project the suites' agents work on.\n",
		"src/app.py": "def main():\n    print('hello')\n\n\nif __name__ == '__main__':\n    main()\n",
		"notes.txt":  "line one\nline two\nline three\n",
	}
	for name, content := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=sysgate", "-c", "user.email=sysgate@example.invalid", "commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("git %v: %w: %s", args, err, out)
		}
	}
	chown := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", uid, uid), ws)
	if out, err := chown.CombinedOutput(); err != nil {
		return "", fmt.Errorf("chown: %w: %s", err, out)
	}
	return ws, nil
}

// agent is one workload: a command in a fresh workspace, or a stdio MCP
// server driven by mcp.
type agent struct {
	name    string
	command func(e *environment, ws string) []string
	mcp     func(ctx context.Context, c *mcptest.Client, ws string) error
	noFiles bool
}

func (e *environment) agents() []agent {
	py := func(scenario string, extra ...string) func(*environment, string) []string {
		return func(e *environment, ws string) []string {
			return append([]string{e.python, "-I", "-B", filepath.Join(e.root, "suites/agents/python/agent.py"), "--workspace", ws, "--scenario", scenario}, extra...)
		}
	}
	server := func(name string) func(*environment, string) []string {
		return func(e *environment, ws string) []string {
			return []string{e.node, filepath.Join(e.root, "suites/node_modules/@modelcontextprotocol", name, "dist/index.js"), ws}
		}
	}
	return []agent{
		{name: "python-read-only", command: py("read-only")},
		{name: "python-network", command: func(e *environment, ws string) []string {
			return py("network", "--url", e.server.URL+"/page")(e, ws)
		}},
		{name: "goagent-exec", command: func(e *environment, ws string) []string {
			return []string{e.goagent, "-workspace", ws, "-scenario", "exec"}
		}},
		{name: "mcp-filesystem", command: server("server-filesystem"), mcp: func(ctx context.Context, c *mcptest.Client, ws string) error {
			if _, err := c.ListTools(ctx); err != nil {
				return err
			}
			if _, err := c.CallTool(ctx, "list_directory", map[string]any{"path": ws}); err != nil {
				return err
			}
			_, err := c.CallTool(ctx, "read_text_file", map[string]any{"path": filepath.Join(ws, "README.md")})
			return err
		}},
		{name: "mcp-memory", command: func(e *environment, ws string) []string {
			return server("server-memory")(e, ws)[:2]
		}, mcp: func(ctx context.Context, c *mcptest.Client, _ string) error {
			entities := []map[string]any{{"name": "sysgate", "entityType": "project", "observations": []string{"a gate"}}}
			if _, err := c.CallTool(ctx, "create_entities", map[string]any{"entities": entities}); err != nil {
				return err
			}
			_, err := c.CallTool(ctx, "read_graph", nil)
			return err
		}},
		// An everyday tool chain an agent runs: archive, inspect, search.
		{name: "shell-tools", command: func(_ *environment, ws string) []string {
			return []string{"/bin/sh", "-c", "tar -czf out.tgz src README.md && tar -tzf out.tgz | sort | head -n 2 && git status --porcelain && find . -name '*.py' | xargs grep -c def && rm -rf out.tgz"}
		}, noFiles: true},
	}
}

func agentNames() []string {
	var names []string
	for _, a := range (&environment{}).agents() {
		names = append(names, a.name)
	}
	return names
}

// record runs the agent once in record mode and returns the syscall names
// it made (argument classes folded into their syscall).
func (a agent) record(ctx context.Context, e *environment, b verdict.Backend, uid uint32) ([]string, error) {
	ws, err := e.workspace(uid)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(ws)
	ag := harness.Agent{Name: a.name, Command: a.command(e, ws), Dir: ws, Env: []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + ws, "LANG=C.UTF-8",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "MEMORY_FILE_PATH=" + filepath.Join(ws, "memory.json"),
	}}
	opts := []harness.Option{harness.WithBackend(b), harness.WithMode(baseline.ModeRecord), harness.WithUser(uid, uid),
		harness.WithTimeout(60 * time.Second), harness.WithEnvFilter()}
	if a.noFiles {
		// The syscalls are the same; on audit the files gate cannot tie
		// tar's and find's directory-relative names yet (issue 42, item 8),
		// which would make every run inconclusive.
		opts = append(opts, harness.WithoutFiles())
	}
	var r *verdict.Result
	if a.mcp != nil {
		var stderr strings.Builder
		ag.Stderr = &stderr
		r, err = mcptest.Run(ctx, ag, func(ctx context.Context, c *mcptest.Client) error { return a.mcp(ctx, c, ws) }, opts...)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", err, stderr.String())
		}
	} else {
		var output strings.Builder
		ag.Stdout, ag.Stderr = &output, &output
		if r, err = harness.Run(ctx, ag, opts...); err != nil {
			return nil, err
		}
		if r.ExitStatus != 0 {
			return nil, fmt.Errorf("agent exited %d: %s", r.ExitStatus, output.String())
		}
	}
	if !r.Conclusive() {
		return nil, fmt.Errorf("inconclusive: %s", r.Inconclusive)
	}
	set := map[string]bool{}
	for _, k := range r.Observed.Names(r.Arch) {
		name, _ := argclass.SplitKey(k)
		set[name] = true
	}
	return sortedKeys(set), nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "suites", "agents", "python", "agent.py")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("run inside a sysgate checkout (no suites/agents/python/agent.py above %s)", dir)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func keys(m map[string]bool) []string { return sortedKeys(m) }
