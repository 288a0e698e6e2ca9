package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/sysgate/sysgate/ci/mcptest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// falseAlarmConfig sizes the false-alarm section: checks per agent and
// backend, checks per direction of the cross-backend line, and the runs
// of each recording (one record, the rest --merge).
type falseAlarmConfig struct {
	checks, cross, records int
}

// runner is how the section starts the CLI for one backend: as root (the
// CLI picks audit) or as nobody (the CLI picks notify, as for a user
// without root: docs/backends.md). backend is what the Result must name.
type runner struct {
	backend  verdict.Backend
	uid, gid uint32
}

func (rn runner) credential() *syscall.SysProcAttr {
	if rn.uid == 0 {
		return nil
	}
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: rn.uid, Gid: rn.gid, Groups: []uint32{}}}
}

// faAgent is an unchanged agent: the same command, the same fresh
// workspace and the same inputs on every run.
type faAgent struct {
	name    string
	command []string // "{ws}" is replaced by the run's workspace
	env     []string
	// drive talks to an MCP server over the run's stdio; nil for the
	// agents that run on their own.
	drive func(ctx context.Context, c *mcptest.Client, ws string) error
}

func (a faAgent) argv(ws string) []string {
	out := slices.Clone(a.command)
	for i, s := range out {
		out[i] = strings.ReplaceAll(s, "{ws}", ws)
	}
	return out
}

// falseAlarms is the section's state: the CLI, the agents' files, the
// loopback model API, and the tallies.
type falseAlarms struct {
	cfg      falseAlarmConfig
	cli      string
	dir      string // every path nobody needs, mode 0755
	template string // the workspace each run gets a fresh copy of
	runners  []runner
}

// falseAlarmSection records each agent on each backend the way the
// README says, checks it cfg.checks times there (every other check
// beside two busy loops), then cfg.cross times on the other backend, and
// prints the non-zero exits by code and by the first reason reported. It
// fails only when an agent cannot be run at all (a record that does not
// exit 0, a command that does not start): the counts are measurements.
func falseAlarmSection(ctx context.Context, cfg falseAlarmConfig, cli string) error {
	start := time.Now()
	fmt.Printf("\n== false alarms: unchanged agents recorded (1 record + %d --merge) and checked by the CLI, %d checks per agent and backend, every other one beside 2 busy loops; cross-backend: %d checks per direction\n",
		cfg.records-1, cfg.checks, cfg.cross)
	if cli == "" {
		return errors.New("false alarms: no sysgate CLI (-sysgate)")
	}
	fa, err := newFalseAlarms(cfg, cli)
	if err != nil {
		return err
	}
	defer os.RemoveAll(fa.dir)
	api, stopAPI, err := modelAPI()
	if err != nil {
		return err
	}
	defer stopAPI()
	agents, err := fa.agents(api)
	if err != nil {
		return err
	}
	var rows []faRow
	for _, a := range agents {
		bases := map[verdict.Backend]string{}
		for _, rn := range fa.runners {
			base, err := fa.record(ctx, a, rn)
			if err != nil {
				return err
			}
			bases[rn.backend] = base
			row, err := fa.checks(ctx, a, rn, base, cfg.checks)
			if err != nil {
				return err
			}
			row.recordedOn = rn.backend
			rows = append(rows, row)
			row.progress(start)
		}
		if len(fa.runners) < 2 || cfg.cross == 0 {
			continue
		}
		for i, rn := range fa.runners {
			from := fa.runners[1-i].backend
			row, err := fa.checks(ctx, a, rn, bases[from], cfg.cross)
			if err != nil {
				return err
			}
			row.recordedOn = from
			rows = append(rows, row)
			row.progress(start)
		}
	}
	printFalseAlarms(rows)
	fmt.Printf("false-alarm section: %s\n", time.Since(start).Round(time.Second))
	return nil
}

func newFalseAlarms(cfg falseAlarmConfig, cli string) (*falseAlarms, error) {
	dir, err := os.MkdirTemp("", "sysgate-falsealarms")
	if err != nil {
		return nil, err
	}
	fa := &falseAlarms{cfg: cfg, dir: dir, runners: []runner{{backend: verdict.BackendAudit}}}
	if why := harness.NotifyUnavailable(); why != "" {
		fmt.Printf("notify backend: not measured (%s)\n", why)
	} else {
		fa.runners = append(fa.runners, runner{backend: verdict.BackendNotify, uid: 65534, gid: 65534})
	}
	// nobody runs the CLI and the agents from here: a copy of the CLI and
	// the agents' files in a directory anyone can read.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	fa.cli = filepath.Join(dir, "sysgate")
	if err := copyFile(cli, fa.cli, 0o755); err != nil {
		return nil, err
	}
	for _, rn := range fa.runners {
		for _, sub := range []string{"baselines-" + string(rn.backend), "results-" + string(rn.backend)} {
			p := filepath.Join(dir, sub)
			if err := os.Mkdir(p, 0o755); err != nil {
				return nil, err
			}
			if err := os.Chown(p, int(rn.uid), int(rn.gid)); err != nil {
				return nil, err
			}
		}
	}
	fa.template = filepath.Join(dir, "template")
	if err := newWorkspace(fa.template); err != nil {
		return nil, err
	}
	return fa, nil
}

func copyFile(from, to string, mode os.FileMode) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, mode)
}

// agents: the Python tool agent (testdata/toolagent.py), the two MCP
// servers of suites/node_modules driven over stdio, and the suites' Go
// agent (its exec scenario: files, git status, sh -c).
func (fa *falseAlarms) agents(api string) ([]faAgent, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	// The python3 of the agents' PATH (benchEnv), which nobody can run
	// too (root's own may live under /root).
	which := exec.Command("/usr/bin/env", "python3", "-I", "-c", "import sys; print(sys.executable)")
	which.Env = benchEnv(fa.dir)
	out, err := which.Output()
	if err != nil {
		return nil, fmt.Errorf("false alarms: python3 in PATH=%s: %w", strings.TrimPrefix(benchEnv("")[0], "PATH="), err)
	}
	py := strings.TrimSpace(string(out))
	script := filepath.Join(fa.dir, "toolagent.py")
	if err := copyFile(filepath.Join(root, "tools", "bench", "testdata", "toolagent.py"), script, 0o644); err != nil {
		return nil, err
	}
	goagent := filepath.Join(fa.dir, "goagent")
	build := exec.Command("go", "build", "-o", goagent, "./suites/agents/goagent")
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the Go agent: %v: %s", err, out)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("false alarms: node: %w (make deps-suites)", err)
	}
	server := func(name string) (string, error) {
		p := filepath.Join(root, "suites", "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("false alarms: %w (make deps-suites)", err)
		}
		return p, nil
	}
	fsServer, err := server("server-filesystem")
	if err != nil {
		return nil, err
	}
	memServer, err := server("server-memory")
	if err != nil {
		return nil, err
	}
	return []faAgent{
		{name: "python tool agent", command: []string{py, "-I", "-B", script, "--workspace", "{ws}", "--api", api}},
		{name: "mcp-filesystem", command: []string{node, fsServer, "{ws}"}, drive: driveFilesystem},
		{name: "mcp-memory", command: []string{node, memServer}, env: []string{"MEMORY_FILE_PATH={ws}/memory.jsonl"}, drive: driveMemory},
		{name: "go agent", command: []string{goagent, "-workspace", "{ws}", "-scenario", "exec"}},
	}, nil
}

// driveFilesystem: initialize, list the tools, read a file and list a
// directory.
func driveFilesystem(ctx context.Context, c *mcptest.Client, ws string) error {
	if _, err := c.Initialize(ctx, mcptest.Implementation{}); err != nil {
		return err
	}
	if _, err := c.ListTools(ctx); err != nil {
		return err
	}
	if _, err := c.CallText(ctx, "read_text_file", map[string]any{"path": filepath.Join(ws, "README.md")}); err != nil {
		return err
	}
	_, err := c.CallText(ctx, "list_directory", map[string]any{"path": ws})
	return err
}

// driveMemory: initialize, store two entities, read the graph back.
func driveMemory(ctx context.Context, c *mcptest.Client, _ string) error {
	if _, err := c.Initialize(ctx, mcptest.Implementation{}); err != nil {
		return err
	}
	if _, err := c.CallText(ctx, "create_entities", map[string]any{"entities": []map[string]any{
		{"name": "sysgate", "entityType": "project", "observations": []string{"gates syscalls"}},
		{"name": "seccomp", "entityType": "kernel feature", "observations": []string{"filters syscalls"}},
	}}); err != nil {
		return err
	}
	_, err := c.CallText(ctx, "read_graph", nil)
	return err
}

// modelAPI is the loopback "model API" the Python agent posts to: one
// fixed answer, on a port that stays the same for the whole section (the
// baselines record it).
func modelAPI() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"looks fine"}}]}`)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/v1/chat/completions", func() { _ = srv.Close() }, nil
}

// record is the one place the section records a baseline, as the
// README says: `sysgate record -o FILE -- CMD`, which runs the agent
// until further runs add nothing, then `--merge` for any further
// recordings the -false-alarm-records knob asks for. Every run must exit 0: an agent that cannot be
// recorded cannot be measured.
func (fa *falseAlarms) record(ctx context.Context, a faAgent, rn runner) (string, error) {
	base := filepath.Join(fa.dir, "baselines-"+string(rn.backend), slug(a.name)+".yaml")
	for i := 0; i < fa.cfg.records; i++ {
		args := []string{"record", "-o", base}
		if i > 0 {
			args = append(args, "--merge")
		}
		o, err := fa.run(ctx, a, rn, args)
		if err != nil {
			return "", fmt.Errorf("false alarms: record %s on %s: %w", a.name, rn.backend, err)
		}
		if o.code != 0 {
			return "", fmt.Errorf("false alarms: record %s on %s (run %d): exit %d: %s\n%s", a.name, rn.backend, i+1, o.code, o.reason, o.tail)
		}
	}
	return base, nil
}

// faRow is one line of the table: an agent checked on a backend against
// a baseline recorded on recordedOn.
type faRow struct {
	agent               string
	backend, recordedOn verdict.Backend
	n, loadedN          int
	loadedAlarms        int
	byCode              map[int]int
	byReason            map[string]int
	wall                samples
}

func (r faRow) alarms() int {
	n := 0
	for code, c := range r.byCode {
		if code != 0 {
			n += c
		}
	}
	return n
}

// progress prints the row as soon as it is measured, so a bench cut
// short still shows what it found.
func (r faRow) progress(start time.Time) {
	fmt.Printf("  %s on %s (recorded on %s): %d of %d checks non-zero, exit codes %s: %s (%s)\n", r.agent, r.backend, r.recordedOn,
		r.alarms(), r.n, codeList(r.byCode), reasonList(r.byReason), time.Since(start).Round(time.Second))
}

// checks runs n checks of a against base on rn's backend, every other
// one beside two busy loops.
func (fa *falseAlarms) checks(ctx context.Context, a faAgent, rn runner, base string, n int) (faRow, error) {
	row := faRow{agent: a.name, backend: rn.backend, n: n, byCode: map[int]int{}, byReason: map[string]int{}}
	for i := 0; i < n; i++ {
		loaded := i%2 == 1
		var stop func()
		if loaded {
			var err error
			if stop, err = busyLoops(2); err != nil {
				return row, err
			}
			row.loadedN++
		}
		t := time.Now()
		o, err := fa.run(ctx, a, rn, []string{"check", "-b", base})
		if stop != nil {
			stop()
		}
		if err != nil {
			return row, fmt.Errorf("false alarms: check %s on %s: %w", a.name, rn.backend, err)
		}
		row.wall = append(row.wall, ms(time.Since(t)))
		row.byCode[o.code]++
		if o.code != 0 {
			row.byReason[o.reason]++
			if loaded {
				row.loadedAlarms++
			}
		}
	}
	return row, nil
}

// busyLoops starts n shell loops that spin until the returned function
// kills them: a CI runner with other work on it.
func busyLoops(n int) (func(), error) {
	var procs []*exec.Cmd
	stop := func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}
	for i := 0; i < n; i++ {
		p := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := p.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("busy loop: %w", err)
		}
		procs = append(procs, p)
	}
	return stop, nil
}

// outcome is one CLI run: its exit code, the first reason its Result
// gives for a non-zero one, and the end of its output.
type outcome struct {
	code   int
	reason string
	tail   string
}

// run starts `sysgate VERB ... --result R -- CMD` as rn in a fresh copy of
// the workspace, drives an MCP server over the CLI's stdio, and reads
// the Result. An error means the run could not be made at all.
func (fa *falseAlarms) run(ctx context.Context, a faAgent, rn runner, verbArgs []string) (outcome, error) {
	ws := filepath.Join(fa.dir, "ws-"+slug(a.name))
	if err := freshWorkspace(fa.template, ws, rn); err != nil {
		return outcome{}, err
	}
	res := filepath.Join(fa.dir, "results-"+string(rn.backend), slug(a.name)+".json")
	if err := os.Remove(res); err != nil && !errors.Is(err, os.ErrNotExist) {
		return outcome{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	args := append(append(slices.Clone(verbArgs), "--result", res, "--"), a.argv(ws)...)
	cmd := exec.CommandContext(ctx, fa.cli, args...)
	cmd.Dir, cmd.SysProcAttr = ws, rn.credential()
	cmd.Env = benchEnv(ws)
	for _, e := range a.env {
		cmd.Env = append(cmd.Env, strings.ReplaceAll(e, "{ws}", ws))
	}
	var out tailBuffer
	cmd.Stderr = &out
	var driveErr error
	if a.drive == nil {
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			return outcome{}, err
		}
	} else {
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return outcome{}, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return outcome{}, err
		}
		if err := cmd.Start(); err != nil {
			return outcome{}, err
		}
		c := mcptest.NewClient(stdin, stdout)
		c.Timeout = time.Minute
		driveErr = a.drive(ctx, c, ws)
		// check prints its report on the stdout the server spoke on, once
		// the server is gone: a protocol error after the session is that.
		if err := c.Close(ctx); err != nil && driveErr == nil && !errors.Is(err, mcptest.ErrProtocol) {
			driveErr = err
		}
	}
	err := cmd.Wait()
	o := outcome{code: cmd.ProcessState.ExitCode(), tail: out.String()}
	if err != nil && o.code < 0 {
		return o, fmt.Errorf("%w\n%s", err, o.tail)
	}
	r, rerr := readResult(res)
	switch {
	case rerr != nil:
		o.reason = "no result: " + lastLine(o.tail)
	case r.Backend != rn.backend:
		return o, fmt.Errorf("the CLI ran on %s, want %s (%s)", r.Backend, rn.backend, r.BackendNote)
	default:
		o.reason = firstReason(r)
	}
	if driveErr != nil {
		// The server did not answer as on every other run: the run's
		// verdict is still the gate's, the reason is the session's.
		o.reason = "mcp session: " + firstLine(driveErr.Error())
		if o.code == 0 {
			o.code = -1
		}
	}
	return o, nil
}

func readResult(path string) (*verdict.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r verdict.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// firstReason is the first thing the Result reports against the run:
// a syscall, a program, a file, a destination, why it is inconclusive,
// or how the agent failed. Numbers in an inconclusive reason are
// replaced by N so that the same cause counts once.
func firstReason(r *verdict.Result) string {
	switch {
	case len(r.Violations) > 0:
		return "syscall " + r.Violations[0].Syscall
	case len(r.ProgramViolations) > 0:
		return "program " + r.ProgramViolations[0].Path
	case len(r.FileViolations) > 0:
		v := r.FileViolations[0]
		return fmt.Sprintf("file %s %s", v.Op, v.Path)
	case len(r.NetworkViolations) > 0:
		v := r.NetworkViolations[0]
		return fmt.Sprintf("network %s %s", v.Op, v.Dest)
	case len(r.ModifiedBaselines) > 0 || len(r.ChangedBaselines) > 0:
		return "baseline changed"
	case r.Inconclusive != "":
		return "inconclusive: " + reasonShape(r.Inconclusive)
	case r.AgentFailed():
		return fmt.Sprintf("agent exit %d %s", r.ExitStatus, r.Signal)
	}
	return string(r.Verdict)
}

// reasonShape keeps the kind of an inconclusive reason: "serial number
// gaps" when it names them, else its first 70 characters with digits
// folded.
func reasonShape(s string) string {
	if strings.Contains(s, "serial number gaps") {
		return "records never delivered (serial number gaps)"
	}
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	var b strings.Builder
	digits := false
	for _, c := range s {
		if c >= '0' && c <= '9' {
			if !digits {
				b.WriteByte('N')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(c)
	}
	if out := []rune(b.String()); len(out) > 70 {
		return string(out[:70]) + "…"
	}
	return b.String()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// freshWorkspace replaces ws by a copy of template owned by rn's user:
// every run starts from the same files at the same path.
func freshWorkspace(template, ws string, rn runner) error {
	if err := os.RemoveAll(ws); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", template, ws).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", template, ws, err, out)
	}
	return filepath.WalkDir(ws, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(rn.uid), int(rn.gid))
	})
}

func slug(name string) string {
	return strings.ReplaceAll(name, " ", "-")
}

// tailBuffer keeps the last 8 KiB written to it.
type tailBuffer struct{ b bytes.Buffer }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b.Write(p)
	if over := t.b.Len() - 8<<10; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return t.b.String() }

// printFalseAlarms prints one table: each agent checked on the backend
// it was recorded on, then the cross-backend rows.
func printFalseAlarms(rows []faRow) {
	tw := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "agent\tchecked on\trecorded on\tchecks\tfalse alarms\tof them beside load\tby exit code\tby first reason\tmedian ms\t")
	var same, sameAlarms, cross, crossAlarms int
	for _, cr := range []bool{false, true} {
		for _, r := range rows {
			if (r.backend != r.recordedOn) != cr {
				continue
			}
			if cr {
				cross, crossAlarms = cross+r.n, crossAlarms+r.alarms()
			} else {
				same, sameAlarms = same+r.n, sameAlarms+r.alarms()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d of %d\t%s\t%s\t%.0f\t\n", r.agent, r.backend, r.recordedOn, r.n, r.alarms(),
				r.loadedAlarms, r.loadedN, codeList(r.byCode), reasonList(r.byReason), r.wall.median())
		}
	}
	_ = tw.Flush()
	fmt.Printf("false alarms, recorded and checked on the same backend: %d of %d checks\n", sameAlarms, same)
	if cross > 0 {
		fmt.Printf("false alarms, recorded on one backend and checked on the other: %d of %d checks\n", crossAlarms, cross)
	}
}

// codeList: "0:28 1:2", every exit code seen with its count.
func codeList(m map[int]int) string {
	codes := make([]int, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d:%d", c, m[c])
	}
	return strings.Join(parts, " ")
}

// reasonList: the reasons, most frequent first, "-" for none.
func reasonList(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	reasons := make([]string, 0, len(m))
	for r := range m {
		reasons = append(reasons, r)
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%s (%d)", r, m[r])
	}
	return strings.Join(parts, "; ")
}
