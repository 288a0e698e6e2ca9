package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == loaderArg {
		err := execFiltered(os.Args[2:])
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(126)
	}
	reps := flag.Int("reps", 5, "repetitions of each measurement (medians are printed)")
	launches := flag.Int("launches", 200, "launches of /bin/true for the start-up figures (and of each command of the CLI's)")
	mcpCalls := flag.Int("mcp-calls", 1000, "tool calls the MCP server answers per run")
	microN := flag.Int("micro", 1_000_000, "syscalls per microbenchmark run")
	execs := flag.Int("execs", 200, "execs of /bin/true per run of the programs section's exec loop")
	cliPath := flag.String("sysgate", "", "sysgate CLI binary, for its whole-process start-up and peak RSS (skipped when empty)")
	faChecks := flag.Int("false-alarm-checks", 100, "checks per agent and backend in the false-alarms section")
	faCross := flag.Int("false-alarm-cross", 30, "checks per direction of the false-alarms section's cross-backend rows (0: none)")
	faRecords := flag.Int("false-alarm-records", 1, "recordings of each false-alarms agent (record, until stable; then --merge)")
	sections := flag.String("sections", strings.Join(allSections, ","), "comma-separated sections to run: "+strings.Join(allSections, ", "))
	flag.Parse()
	want, err := parseSections(*sections)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if *faChecks < 1 || *faCross < 0 || *faRecords < 1 {
		fmt.Fprintln(os.Stderr, "bench: -false-alarm-checks and -false-alarm-records must be at least 1, -false-alarm-cross at least 0")
		os.Exit(2)
	}
	fa := falseAlarmConfig{checks: *faChecks, cross: *faCross, records: *faRecords}
	if err := run(context.Background(), config{reps: *reps, launches: *launches, mcpCalls: *mcpCalls, microN: *microN, execs: *execs, cli: *cliPath, sections: want, falseAlarms: fa}); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// allSections are the tables, in the order they run.
var allSections = []string{"check", "record", "programs", "files", "network", "startup", "cli", "rss", "falsealarms"}

func parseSections(list string) (map[string]bool, error) {
	want := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(allSections, s) {
			return nil, fmt.Errorf("-sections: unknown section %q (want some of %s)", s, strings.Join(allSections, ", "))
		}
		want[s] = true
	}
	return want, nil
}

type config struct {
	reps, launches, mcpCalls, microN, execs int
	cli                                     string
	sections                                map[string]bool
	backends                                []verdict.Backend // measured side by side, audit first
	falseAlarms                             falseAlarmConfig
}

func run(ctx context.Context, cfg config) error {
	dir, err := os.MkdirTemp("", "sysgate-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	printMachine()
	cfg.backends = benchBackends()

	// The agents and tools behind the first three sections and the RSS
	// run (gcc; node for the MCP server) are built only when one of them
	// is wanted.
	mcp := cfg.sections["check"] || cfg.sections["record"] || cfg.sections["rss"] || cfg.sections["files"] || cfg.sections["network"]
	w, err := setup(dir, cfg, mcp || cfg.sections["programs"], mcp)
	if err != nil {
		return err
	}
	if cfg.sections["record"] {
		// First, before this process opens an audit socket of its own.
		if err := recordFloor(ctx, cfg, dir, w.drain, w.getppid100k); err != nil {
			return err
		}
	}
	bases := baselines{dir: dir, paths: map[string]string{}, python: w.python}
	// Recorded up front, so no section's table is interrupted.
	for _, wl := range neededBaselines(cfg, w) {
		if _, err := bases.of(ctx, wl); err != nil {
			return err
		}
	}
	if cfg.sections["check"] {
		if err := checkSection(ctx, cfg, w, &bases); err != nil {
			return err
		}
	}
	if cfg.sections["record"] {
		if err := recordVsStrace(ctx, cfg, []workload{w.getppid100k, w.python, w.mcp}); err != nil {
			return err
		}
		if err := recordArgClasses(ctx, cfg, []workload{w.python, w.mcp}); err != nil {
			return err
		}
		if err := incrementalRecord(ctx, cfg, []workload{w.python, w.mcp}, &bases); err != nil {
			return err
		}
	}
	if cfg.sections["programs"] {
		if err := programsCost(ctx, cfg, w.execs, w.execsProgram, []workload{w.getppid, w.read}, &bases); err != nil {
			return err
		}
	}
	if cfg.sections["files"] {
		if err := filesCost(ctx, cfg, w, &bases); err != nil {
			return err
		}
	}
	if cfg.sections["network"] {
		if err := networkCost(ctx, cfg, w, &bases); err != nil {
			return err
		}
	}
	if cfg.sections["startup"] {
		base, err := bases.of(ctx, w.trueCmd)
		if err != nil {
			return err
		}
		if err := startup(ctx, cfg, w.trueCmd, base); err != nil {
			return err
		}
	}
	if cfg.sections["cli"] {
		if err := cliStartup(ctx, cfg, dir, w, &bases); err != nil {
			return err
		}
	}
	if cfg.sections["rss"] && cfg.cli != "" {
		base, err := bases.of(ctx, w.getppid)
		if err != nil {
			return err
		}
		if err := peakRSS(ctx, cfg, dir, w.getppid, base); err != nil {
			return err
		}
	}
	if cfg.sections["falsealarms"] {
		return falseAlarmSection(ctx, cfg.falseAlarms, cfg.cli)
	}
	return nil
}

// neededBaselines are the workloads whose baselines the wanted sections
// use.
func neededBaselines(cfg config, w workloads) []workload {
	var need []workload
	if cfg.sections["check"] {
		need = append(need, w.getppid, w.read, w.openat, w.mcp, w.python)
	}
	if cfg.sections["record"] {
		need = append(need, w.python, w.mcp) // the incremental record's baselines
	}
	if cfg.sections["programs"] {
		need = append(need, w.execs, w.getppid, w.read)
	}
	if cfg.sections["files"] {
		need = append(need, w.python, w.openat, w.getppid) // and its own MCP run and waiting agent (filesCost)
	}
	if cfg.sections["startup"] || cfg.sections["cli"] {
		need = append(need, w.trueCmd)
	}
	if cfg.sections["cli"] {
		need = append(need, w.pythonPass)
	}
	if cfg.sections["rss"] && cfg.cli != "" {
		need = append(need, w.getppid)
	}
	return need
}

// checkSection measures check mode: the overhead per workload, then the
// cost of a call outside the baseline. The openat row measures the
// argument rule only if the baseline allows openat by class, not
// argument blind.
func checkSection(ctx context.Context, cfg config, w workloads, bases *baselines) error {
	outsideBase, err := bases.without(ctx, w.getppidOutside, "getppid")
	if err != nil {
		return err
	}
	if err := bases.requireClassed(w.openat, "openat(read)"); err != nil {
		return err
	}
	if err := checkOverhead(ctx, cfg, []workload{w.getppid, w.read, w.openat, w.mcp, w.python}, bases); err != nil {
		return err
	}
	return outsideCost(ctx, cfg, w.getppidOutside, outsideBase)
}

// baselines records each workload's baseline the first time a section
// needs it.
type baselines struct {
	dir       string
	paths     map[string]string // by workload name
	python    workload          // the runtime the microbenchmarks' baselines extend
	announced bool
}

func (b *baselines) of(ctx context.Context, wl workload) (string, error) {
	if p, ok := b.paths[wl.name]; ok {
		return p, nil
	}
	b.announce()
	extends := ""
	if wl.perCall {
		// The microbenchmark gets a realistic allow-list: the Python
		// agent's (a runtime's worth of syscalls) plus its own.
		var err error
		if extends, err = b.of(ctx, b.python); err != nil {
			return "", err
		}
	}
	p, err := recordBaseline(ctx, b.dir, wl, extends, "")
	if err != nil {
		return "", err
	}
	b.paths[wl.name] = p
	return p, nil
}

// without is wl's own baseline (extending nothing) with syscall left
// out, so that every call of it is outside the baseline.
func (b *baselines) without(ctx context.Context, wl workload, syscall string) (string, error) {
	b.announce()
	return recordBaseline(ctx, b.dir, wl, "", syscall)
}

// requireClassed checks that wl's recorded baseline allows key's syscall
// through classes only, key among them: an argument-blind entry would
// allow it with no comparison at all.
func (b *baselines) requireClassed(wl workload, key string) error {
	path, p, err := b.load(wl)
	if err != nil {
		return err
	}
	classes := p.Classes(scmp.Native(), argclass.SyscallOf(key))
	if !slices.Contains(classes, key) || slices.Contains(classes, argclass.SyscallOf(key)) {
		return fmt.Errorf("baseline %s of %s allows %v, want %s by its class", path, wl.name, classes, key)
	}
	fmt.Printf("%s: the baseline allows %s\n", wl.name, strings.Join(classes, ", "))
	return nil
}

// load reads wl's recorded baseline, with everything it extends.
func (b *baselines) load(wl workload) (string, *baseline.Profile, error) {
	path, ok := b.paths[wl.name]
	if !ok {
		return "", nil, fmt.Errorf("baseline of %s: not recorded", wl.name)
	}
	p, err := baseline.LoadStackFor(hostSelector(), path)
	return path, p, err
}

func (b *baselines) announce() {
	if !b.announced {
		fmt.Printf("\nrecording baselines for the check runs ...\n")
		b.announced = true
	}
}

type workloads struct {
	getppid, read, getppid100k, mcp, python workload
	// openat is a loop of read-only opens, allowed in check mode by the
	// baseline's openat(read): the argument rule's cost.
	openat              workload
	trueCmd, pythonPass workload
	// getppidOutside is the loop of getppid100k timed per call, for a
	// baseline that leaves getppid out.
	getppidOutside workload
	// execs forks and execs execsProgram (/bin/true, symlinks resolved)
	// over and over, timed per exec.
	execs        workload
	execsProgram string
	// drain is the drain-only audit reader (testdata/drain.c).
	drain string
}

// setup makes the workloads: /bin/true, python3 -c pass and, if all,
// the microbenchmarks, the exec loop, the Python agent and, if mcp too,
// the MCP server.
func setup(dir string, cfg config, all, mcp bool) (workloads, error) {
	var w workloads
	root, err := moduleRoot()
	if err != nil {
		return w, err
	}
	env := benchEnv(dir)
	w.trueCmd = workload{name: "/bin/true", command: []string{"/bin/true"}, env: env}
	py, err := testutil.PythonExecutable()
	if err != nil {
		return w, err
	}
	w.pythonPass = workload{name: "python3 -c pass", command: []string{py, "-c", "pass"}, env: env}
	if !all {
		return w, nil
	}
	micro, execLoop := filepath.Join(dir, "micro"), filepath.Join(dir, "execs")
	w.drain = filepath.Join(dir, "drain")
	for bin, src := range map[string]string{micro: "micro.c", execLoop: "execs.c", w.drain: "drain.c"} {
		if out, err := exec.Command("gcc", "-static", "-O2", "-o", bin, filepath.Join(root, "tools", "bench", "testdata", src)).CombinedOutput(); err != nil {
			return w, fmt.Errorf("gcc %s: %v: %s", src, err, out)
		}
	}
	ws := filepath.Join(dir, "workspace")
	if err := newWorkspace(ws); err != nil {
		return w, err
	}
	env = benchEnv(ws)
	n := strconv.Itoa(cfg.microN)
	w.getppid = workload{name: "getppid x" + n, command: []string{micro, "getppid", n}, perCall: true, env: env}
	w.read = workload{name: "read(/dev/zero) x" + n, command: []string{micro, "read", n}, perCall: true, env: env}
	// A tenth as many: a pair costs about ten getppids.
	pairs := strconv.Itoa(cfg.microN / 10)
	w.openat = workload{name: "openat(O_RDONLY)+close x" + pairs, command: []string{micro, "openat", filepath.Join(ws, "notes.txt"), pairs},
		perCall: true, per: "pair", env: env}
	w.getppid100k = workload{name: "getppid x100000", command: []string{micro, "getppid", "100000"}, env: env}
	w.getppidOutside = workload{name: "getppid x100000", command: w.getppid100k.command, perCall: true, env: env}
	// The program as an exec names it; the harness lists it by its
	// resolved path (/usr/bin/true where /bin is a link).
	if w.execsProgram, err = filepath.EvalSymlinks("/bin/true"); err != nil {
		return w, err
	}
	w.execs = workload{name: fmt.Sprintf("fork+exec /bin/true x%d", cfg.execs), command: []string{execLoop, "/bin/true", strconv.Itoa(cfg.execs)},
		perCall: true, per: "exec", env: env}
	w.python = workload{name: "python agent read-only", dir: ws, env: env, command: []string{py, "-I", "-B",
		filepath.Join(root, "suites", "agents", "python", "agent.py"), "--workspace", ws, "--scenario", "read-only"}}
	if !mcp {
		return w, nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return w, err
	}
	server := filepath.Join(root, "suites", "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	if _, err := os.Stat(server); err != nil {
		return w, fmt.Errorf("%w (run: make deps-suites)", err)
	}
	w.mcp = workload{name: fmt.Sprintf("mcp-filesystem %d calls", cfg.mcpCalls), command: []string{node, server, ws}, dir: ws, env: env, mcpCalls: cfg.mcpCalls}
	return w, nil
}

// benchEnv is every workload's environment: a fixed one, so the
// caller's does not change what the commands do.
func benchEnv(home string) []string {
	return []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "LANG=C.UTF-8",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
}

// recordBaseline records wl twice (merged, to catch rarely made calls)
// into a baseline file, optionally extending another and leaving a
// syscall out.
func recordBaseline(ctx context.Context, dir string, wl workload, extends, leaveOut string) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("b%d.yaml", time.Now().UnixNano()))
	if n, err := strconv.Atoi(wl.command[len(wl.command)-1]); wl.perCall && err == nil && n > 1000 {
		// The same syscalls in fewer loops: record mode logs every one.
		wl.command = append(wl.command[:len(wl.command)-1:len(wl.command)-1], "1000")
	}
	for i := 0; i < 2; i++ {
		_, r, err := wl.runGated(ctx, harness.WithMode(baseline.ModeRecord))
		if err != nil {
			return "", fmt.Errorf("record %s: %w", wl.name, err)
		}
		if !r.Conclusive() {
			return "", fmt.Errorf("record %s: inconclusive: %s", wl.name, r.Inconclusive)
		}
		r.Observed.Agent = "bench" // one agent key for every workload's file
		if leaveOut != "" {
			for _, calls := range r.Observed.Syscalls {
				delete(calls, leaveOut)
			}
		}
		opts := baseline.RecordOptions{Agent: "bench", Merge: i > 0}
		if extends != "" {
			opts.Extends = []string{extends}
		}
		if _, err := baseline.WriteRecorded(path, r.Observed, opts); err != nil {
			return "", err
		}
	}
	if leaveOut != "" {
		p, err := baseline.LoadStackFor(hostSelector(), path)
		if err != nil {
			return "", err
		}
		if p.Allows(scmp.Native(), leaveOut) {
			return "", fmt.Errorf("baseline %s of %s allows %s, which it should leave out", path, wl.name, leaveOut)
		}
	}
	return path, nil
}

func printMachine() {
	fmt.Printf("sysgate bench, %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	if b, err := exec.Command("uname", "-srm").Output(); err == nil {
		fmt.Printf("kernel: %s", b)
	}
	if b, err := exec.Command("sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2; nproc; grep MemTotal /proc/meminfo").Output(); err == nil {
		fmt.Printf("cpu/cores/mem: %s", b)
	}
	printLoad("at start")
	fmt.Printf("other audit multicast readers on the machine: %d (each logged record is copied to every one)\n", auditListeners())
}

// auditListeners counts NETLINK_AUDIT sockets in a multicast group; -1
// when unknown.
func auditListeners() int {
	n, err := kernel.AuditMulticastSockets()
	if err != nil {
		return -1
	}
	return n
}

func printLoad(when string) {
	if l, err := kernel.LoadAvg(); err == nil {
		fmt.Printf("load average %s: %s\n", when, l)
	}
}

// moduleRoot is the sysgate checkout this binary was built from: this file
// is tools/bench/main.go in it (the suites' agents live at the top, the
// bench's own sources under tools/bench).
func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("no caller information")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file))), nil
}

// newWorkspace is a small git project for the agents to work on.
func newWorkspace(dir string) error {
	files := map[string]string{
		"README.md":  "# demo\n\nA small project the agents work on.\n",
		"src/app.py": "def main():\n    print('hello')\n",
		"notes.txt":  "line one\nline two\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w: %s", args, err, out)
		}
	}
	return nil
}
