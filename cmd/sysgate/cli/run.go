//go:build linux

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

func init() {
	register("record", "run an agent with every syscall logged and write its baseline file", (*Command).runRecord)
	register("check", "run an agent against baseline files: exit 1 on a syscall outside them", (*Command).runCheck)
	register("enforce", "run an agent with everything outside the baselines denied (EPERM or kill)", (*Command).runEnforce)
}

// runFlags are the flags every run verb shares.
type runFlags struct {
	agent   string
	dir     string
	user    string
	timeout time.Duration
	grace   time.Duration
	// allowAgentFailure: a failing agent with clean syscalls exits 0.
	allowAgentFailure bool
	keepCaps          listFlag // --keep-cap: capabilities the agent keeps (a weaker gate)
	inherit           inheritFlags
	force             bool           // --force: write outputs into directories the agent can write
	agentUser         *agentIdentity // set by runOptions when the agent runs as a given user
	color             string         // --color: auto, always or never
	backend           string         // --backend: auto, audit or notify
	noArgClasses      bool           // --no-arg-classes
	noPrograms        bool           // --no-programs
	noFiles           bool           // --no-files
	noNetwork         bool           // --no-network
	readOnly          listFlag       // --read-only: more paths the agent cannot write
	root              string         // --root: the run's own root file system
	binds             listFlag       // --bind: directories bound into it
	scheduling        string         // --scheduling: grouped or exact ("": the baselines say)
	schedulingMode    scheduling.Mode
}

// register adds the shared flags; agentDefault says where the agent's
// name comes from without --agent.
func (f *runFlags) register(fs *flag.FlagSet, agentDefault string) {
	fs.StringVar(&f.agent, "agent", "", "the agent's `NAME` in reports (default: "+agentDefault+")")
	fs.StringVar(&f.dir, "dir", "", "the agent's working directory `DIR`")
	fs.StringVar(&f.user, "user", "", "run the agent as `USER` (a name or uid[:gid]); default: the user who ran sudo (SUDO_UID), else the caller; --user root keeps root")
	fs.DurationVar(&f.timeout, "timeout", 0, "kill the whole process tree after this long (0: no limit)")
	fs.DurationVar(&f.grace, "grace", harness.DefaultGrace, "how long processes may outlive the agent before they are killed and reported")
	fs.Var(&f.keepCaps, "keep-cap", "let the agent keep the capability `CAP` (e.g. SYS_PTRACE), which sysgate otherwise takes; repeatable; every report names it as a weakening")
	fs.BoolVar(&f.allowAgentFailure, "allow-agent-failure", false, "a clean run passes even if the agent exits non-zero or dies of a signal (default: exit 4)")
	f.inherit.register(fs)
	fs.StringVar(&f.backend, "backend", "auto", "how the run sees syscalls: `BACKEND` audit (root: the kernel's audit records), notify (no root needed: a seccomp listener) or auto (audit where it can, else notify); default $SYSGATE_BACKEND, else auto")
	fs.StringVar(&f.scheduling, "scheduling", "", "how the scheduling-dependent syscalls ("+strings.Join(scheduling.Names(), ", ")+") count: `MODE` grouped (always allowed, never written by record) or exact (like any other syscall); default: the baselines' scheduling key, else grouped")
	fs.BoolVar(&f.noArgClasses, "no-arg-classes", false, "switch argument classes off: a baseline entry such as socket(AF_UNIX) allows its syscall with any arguments, and record learns names only (for measuring; every report lists it as a weakening)")
	fs.BoolVar(&f.noPrograms, "no-programs", false, "do not observe execs: the programs the agent runs are neither listed nor gated, and record learns no programs (for measuring; every report lists it as a weakening)")
	fs.BoolVar(&f.noFiles, "no-files", false, "do not observe files: the files the agent reads and writes are neither listed nor gated, and record learns no files (for measuring; every report lists it as a weakening)")
	fs.BoolVar(&f.noNetwork, "no-network", false, "do not observe the network: where the agent connects, binds, listens and sends, and the names it looks up, are neither listed nor gated, and record learns no destinations (for measuring; every report lists it as a weakening)")
	fs.StringVar(&f.color, "color", "auto", "colour the text result: auto (on a terminal, unless NO_COLOR is set), always or never")
	fs.Var(&f.readOnly, "read-only", "bind `PATH` (a file or a directory and everything below it) read-only for the agent, as its baselines are; "+
		"repeatable; the text result names every such path (a CI job's action, tool cache and file-command directory)")
	fs.StringVar(&f.root, "root", "", "run the agent in `DIR`, another distribution's tree (scripts/rootfs.sh builds one), as its /: read-only, with a fresh /tmp; "+
		"the command, --dir and the environment fingerprint are taken inside it (needs root or the notify backend's user namespace)")
	fs.Var(&f.binds, "bind", "with --root: bind the host's directory `SOURCE[:TARGET]` read-write into the root at TARGET (default: the same path); repeatable")
	fs.BoolVar(&f.force, "force", false, "write outputs into a directory the agent's user can write (refused by default when the agent runs as another user)")
}

// backend is the backend --backend names: $SYSGATE_BACKEND picks for a
// whole job (make security-test's suites read it too) where the flag is
// left at auto.
func (c *Command) backend(flag string) (verdict.Backend, error) {
	name := flag
	if env := c.getenv("SYSGATE_BACKEND"); name == "auto" && env != "" {
		name = env
	}
	b, err := verdict.ParseBackend(name)
	if err != nil {
		return "", fmt.Errorf("--backend (or $SYSGATE_BACKEND): %w", err)
	}
	return b, nil
}

// options turns the shared flags into harness options.
func (c *Command) runOptions(f *runFlags) ([]harness.Option, error) {
	backend, err := c.backend(f.backend)
	if err != nil {
		return nil, err
	}
	// The filter cache spares the next sysgate process libseccomp's ~3 ms
	// for the same files (used only where the fence hides it from agents).
	opts := []harness.Option{harness.WithTimeout(f.timeout), harness.WithGrace(f.grace), harness.WithBackend(backend), harness.WithFilterCache()}
	if f.allowAgentFailure {
		opts = append(opts, harness.WithAllowAgentFailure())
	}
	if f.scheduling != "" {
		if f.schedulingMode, err = scheduling.ParseMode(f.scheduling); err != nil {
			return nil, fmt.Errorf("--%w", err)
		}
		opts = append(opts, harness.WithScheduling(f.schedulingMode))
	}
	if f.noArgClasses {
		opts = append(opts, harness.WithoutArgClasses())
	}
	if f.noFiles {
		opts = append(opts, harness.WithoutFiles())
	}
	if f.noNetwork {
		opts = append(opts, harness.WithoutNetwork())
	}
	if f.noPrograms {
		opts = append(opts, harness.WithoutPrograms())
	}
	if len(f.keepCaps) > 0 {
		opts = append(opts, harness.WithKeepCapabilities(f.keepCaps...))
	}
	for _, p := range f.readOnly {
		if p == "" {
			return nil, fmt.Errorf("--read-only: an empty path")
		}
	}
	if len(f.readOnly) > 0 {
		opts = append(opts, harness.WithReadOnly(f.readOnly...))
	}
	if len(f.binds) > 0 && f.root == "" {
		return nil, fmt.Errorf("--bind needs --root")
	}
	if f.root != "" {
		if !filepath.IsAbs(f.root) {
			return nil, fmt.Errorf("--root %q: want an absolute path", f.root)
		}
		var binds []kernel.BindFile
		for _, b := range f.binds {
			bind, err := harness.ParseRootBind(b)
			if err != nil {
				return nil, err
			}
			binds = append(binds, bind)
		}
		opts = append(opts, harness.WithRoot(filepath.Clean(f.root), binds...))
	}
	inherit, err := f.inherit.options()
	if err != nil {
		return nil, err
	}
	opts = append(opts, inherit...)
	guard, err := c.baselineGuard()
	if err != nil {
		return nil, err
	}
	opts = append(opts, harness.WithBaselineGuard(guard))
	user := f.user
	if user == "" {
		var err error
		if user, err = c.sudoUser(); err != nil {
			return nil, err
		}
	}
	if user != "" {
		uid, gid, err := lookupUser(user)
		if err != nil {
			return nil, err
		}
		opts = append(opts, harness.WithUser(uid, gid))
		f.agentUser = &agentIdentity{uid, gid}
	}
	return opts, nil
}

// envBaselines names the gate's baselines (files or directories,
// separated by white space), which the sysgate action sets from its
// baselines input: every run binds them read-only and fails if one
// changed since this process began (harness.BaselineGuard), so an agent
// cannot rewrite the baseline of the next agent the job checks.
const envBaselines = "SYSGATE_BASELINES"

// baselineGuard is the process's guard on $SYSGATE_BASELINES, made before
// its run (nil when unset).
func (c *Command) baselineGuard() (*harness.BaselineGuard, error) {
	paths := strings.Fields(c.getenv(envBaselines))
	if len(paths) == 0 {
		return nil, nil
	}
	g, err := harness.NewBaselineGuard(paths...)
	if err != nil {
		return nil, fmt.Errorf("$%s: %w", envBaselines, err)
	}
	return g, nil
}

// sudoUser is "UID:GID" of the user who ran sudo, when sysgate runs as
// root through sudo: the agent then runs as that user unless --user says
// otherwise (`sudo make security-test`, a GitHub runner's `sudo sysgate`).
// "" when not started through sudo, or sudo was run by root.
func (c *Command) sudoUser() (string, error) {
	uid, gid, ok, err := harness.SudoCaller(c.getenv)
	if err != nil {
		return "", fmt.Errorf("%w: pass --user explicitly", err)
	}
	if !ok {
		return "", nil
	}
	return fmt.Sprintf("%d:%d", uid, gid), nil
}

// lookupUser accepts a user name or uid[:gid].
func lookupUser(spec string) (uid, gid uint32, err error) {
	name, groupPart, hasGroup := strings.Cut(spec, ":")
	u, err := user.Lookup(name)
	if err != nil {
		u, err = user.LookupId(name)
	}
	if err != nil {
		n, perr := strconv.ParseUint(name, 10, 32)
		if perr != nil {
			return 0, 0, fmt.Errorf("--user %q: %w", spec, err)
		}
		uid, gid = uint32(n), uint32(n)
	} else {
		u64, _ := strconv.ParseUint(u.Uid, 10, 32)
		g64, _ := strconv.ParseUint(u.Gid, 10, 32)
		uid, gid = uint32(u64), uint32(g64)
	}
	if hasGroup {
		g, err := strconv.ParseUint(groupPart, 10, 32)
		if err != nil {
			return 0, 0, fmt.Errorf("--user %q: gid: %w", spec, err)
		}
		gid = uint32(g)
	}
	return uid, gid, nil
}

// agent builds the harness agent from the command line after "--".
func (c *Command) agent(f *runFlags, command []string, stdoutToStderr bool) harness.Agent {
	own := c.Env
	if own == nil {
		own = os.Environ()
	}
	a := harness.Agent{Name: f.agent, Command: command, Dir: f.dir, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		Env: f.inherit.env(own), ExtraFiles: f.inherit.extraFiles}
	if stdoutToStderr {
		a.Stdout = c.Stderr // keep the JSON on stdout parseable
	}
	return a
}

// runHarness is harness.Run; replaceable in tests, which render results
// (programs, mismatches) a real run of this machine does not produce.
var runHarness = harness.Run

// runAgent runs the agent until it finishes or the user interrupts; an
// interrupt kills the tree and yields an inconclusive result.
func (c *Command) runAgent(a harness.Agent, opts []harness.Option) (*verdict.Result, int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if p := newProgress(c.Stderr); p != nil {
		opts = append(opts, harness.WithProgress(p.event))
	}
	// SYSGATE_PHASES=1: where the run's fixed cost goes, one line per
	// phase on stderr (make bench sums them over runs).
	if c.getenv("SYSGATE_PHASES") != "" {
		phase := func(phase string, d time.Duration) {
			fmt.Fprintf(c.Stderr, "sysgate: phase %s %.3f ms\n", phase, float64(d.Microseconds())/1000)
		}
		phase("cli", time.Since(c.started)) // flags, baselines' guard, options
		opts = append(opts, harness.WithPhaseTimes(phase))
	}
	r, err := runHarness(ctx, a, opts...)
	if err != nil {
		if notFound(err) {
			return nil, c.errorf(ExitUsage, "%s", commandNotFound(a))
		}
		return nil, c.runError(err)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(c.Stderr, "sysgate: warning: %s\n", terminalLines(w))
	}
	return r, ExitOK
}

// notFound says whether err is an agent command that does not exist: the
// launcher found no file of its name (in $PATH, for a bare name). A typo
// in the command line is bad input, not an environment that keeps
// sysgate from a verdict.
func notFound(err error) bool {
	var se *os.SyscallError
	return errors.Is(err, harness.ErrAgentStart) && errors.As(err, &se) && se.Syscall == kernel.StepFindAgent &&
		(errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR))
}

// commandNotFound says which command was not found and where the
// launcher looked: the agent's $PATH (after --dir), as execvp would.
func commandNotFound(a harness.Agent) string {
	name := ""
	if len(a.Command) > 0 {
		name = a.Command[0]
	}
	if strings.Contains(name, "/") {
		where := "the working directory"
		if a.Dir != "" {
			where = "--dir " + a.Dir
		}
		return fmt.Sprintf("command not found: %s: no such file (relative to %s); check the path after --", name, where)
	}
	path := kernel.DefaultPath + " (the default: the agent's environment has no PATH)"
	for _, kv := range a.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return fmt.Sprintf("command not found: %s: no executable of that name in the agent's PATH=%s; check the spelling, or give the command's path", name, path)
}

// runError maps a Run error to an exit code: a bad baseline is bad input,
// everything else (no audit support, agent not started) keeps sysgate
// from a verdict.
func (c *Command) runError(err error) int {
	if errors.Is(err, baseline.ErrInvalid) || errors.Is(err, baseline.ErrBadInput) || errors.Is(err, harness.ErrKeepCapability) ||
		errors.Is(err, harness.ErrPassEnv) {
		return c.errorf(ExitUsage, "%v", err)
	}
	return c.errorf(ExitInconclusive, "%v", err)
}

func (c *Command) runCheck(args []string) int { return c.runGate("check", baseline.ModeCheck, args) }

func (c *Command) runEnforce(args []string) int {
	return c.runGate("enforce", baseline.ModeEnforce, args)
}

func (c *Command) runGate(verb string, mode baseline.Mode, args []string) int {
	fs := c.flagSet(verb, "-b BASELINE [-b MORE...] -- CMD [ARGS...]")
	var f runFlags
	f.register(fs, "the baselines' agent, else the command's script, else its directory")
	var baselines listFlag
	var format, action, resultPath string
	fs.Var(&baselines, "b", "a `BASELINE` file; repeatable, layered in order (required)")
	fs.StringVar(&format, "format", "text", "output: text, json (the full Result), github (annotations) or sarif (SARIF 2.1.0 for code scanning)")
	fs.StringVar(&resultPath, "result", "", "also write the Result as JSON to `FILE`, for sysgate report --result")
	var ciOut ciOutputs
	ciOut.register(fs, true)
	if mode == baseline.ModeEnforce {
		fs.StringVar(&action, "action", "errno", "what a syscall outside the baselines gets: errno (EPERM) or kill")
	}
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if code, ok := c.require(fs, verb, required{"-b BASELINE", len(baselines) > 0}, required{"-- CMD", fs.NArg() > 0}); !ok {
		return code
	}
	if !slices.Contains(ci.ResultFormats, format) {
		return c.errorf(ExitUsage, "--format %q: want text, json, github or sarif", format)
	}
	if code, ok := c.resolveCIOutputs(&ciOut); !ok {
		return code
	}
	pal, err := c.palette(f.color, c.Stdout)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	opts, err := c.runOptions(&f)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	// A baseline that cannot be read is bad input (exit 2), like one that
	// does not parse, not an environment problem.
	named, err := baselinesAgent(baselines)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	f.agent = c.agentName(f.agent, named)
	if code, ok := c.checkOutputs(&f, resultPath, ciOut.junit); !ok {
		return code
	}
	opts = append(opts, harness.WithBaselines(baselines...), harness.WithMode(mode))
	opts = append(opts, ciOut.readOnly(resultPath)...)
	if action != "" {
		a, err := baseline.ParseAction(action)
		if err != nil {
			return c.errorf(ExitUsage, "--action: %v", err)
		}
		opts = append(opts, harness.WithEnforceAction(a))
	}
	// The agent's stdout goes to stderr when stdout is a machine's.
	r, code := c.runAgent(c.agent(&f, fs.Args(), format == "json" || format == "sarif"), opts)
	if r == nil {
		return code
	}
	root, err := repoRoot()
	if err != nil {
		return c.errorf(ExitInconclusive, "%v", err)
	}
	// A closed stdout (| head) loses the rest of the report, not the
	// verdict: the exit code and the files asked for still follow.
	if err := ci.WriteResult(c.Stdout, format, r, root, pal); err != nil && !closedPipe(err) {
		return c.errorf(ExitInconclusive, "write result: %v", err)
	}
	if code, ok := c.writeRunCIOutputs(&f, &ciOut, r); !ok {
		return code
	}
	if code, ok := c.checkOutputs(&f, resultPath); !ok {
		return code
	}
	if resultPath != "" {
		if err := ci.WriteResultFile(resultPath, r); err != nil {
			return c.errorf(ExitInconclusive, "write result: %v", err)
		}
	}
	return verdictCode(r.Verdict)
}

// baselinesAgent reads each named baseline file and returns the agent key
// of the first that has one (no layer is resolved for it: the run reads
// the machine once, for the layers). An unreadable file is an error; one
// that does not parse names no agent (the run reports it).
func baselinesAgent(baselines []string) (string, error) {
	named, parsed := "", true
	for _, b := range baselines {
		data, err := baseline.ReadInput(b)
		if err != nil {
			return "", fmt.Errorf("baseline %s: %v", b, unwrapPathError(err))
		}
		if !parsed || named != "" {
			continue // read still: an unreadable later file is bad input too
		}
		doc, err := baseline.ParseDocument(b, data)
		if err != nil {
			parsed = false
			continue
		}
		named = doc.Agent
	}
	return named, nil
}

// gateAgent is the agent's name for check and enforce: --agent when given,
// else the name the baselines give (the first -b file with an agent key),
// so the result names the agent the baseline is for, not "node" or
// "python3". "" leaves it to harness.AgentName. A --agent the
// baselines contradict is kept, with a warning: it is how a second agent
// borrows a baseline, and how a typo shows.
func (c *Command) gateAgent(flagAgent string, baselines []string) string {
	named, err := baselinesAgent(baselines)
	if err != nil {
		return flagAgent // the run reports the bad baseline
	}
	return c.agentName(flagAgent, named)
}

// agentName is --agent (warning when the baselines name another), else
// the baselines' agent (named).
func (c *Command) agentName(flagAgent, named string) string {
	switch {
	case flagAgent == "":
		return named
	case named != "" && flagAgent != named:
		fmt.Fprintf(c.Stderr, "sysgate: warning: --agent %s, but the baselines are for agent %s\n", flagAgent, named)
	}
	return flagAgent
}
