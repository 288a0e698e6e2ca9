package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/cmd/sysgate/cli/action"
	"github.com/sysgate/sysgate/internal/safefile"
)

// The steps of the GitHub Action (action.yml) after the install: its
// inputs arrive as INPUT_* variables, GitHub's files (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY) as the runner names them. scripts/action.sh, the
// bootstrap, plans and installs the binary these run in.
func init() {
	for _, v := range []struct {
		name, summary string
		step          func(*actionStep) error
	}{
		{"doctor", "stop early, with the fixes, when the backend cannot run here", (*actionStep).doctor},
		{"gate", "validate, run the command or packages, write the reports and outputs", (*actionStep).gate},
		{"widening", "what a pull request's baselines allow that its base's did not", (*actionStep).widening},
		{"widening-verdict", "fail the job for a widening (on-widening: fail)", (*actionStep).wideningVerdict},
	} {
		register("action "+v.name, "the GitHub Action's "+v.name+" step: "+v.summary+" (inputs: INPUT_* variables)",
			actionVerb("action "+v.name, v.step))
	}
}

// actionVerb runs one step; it takes no arguments: its inputs are the
// environment's.
func actionVerb(path string, step func(*actionStep) error) func(*Command, []string) int {
	return func(c *Command, args []string) int {
		fs := c.flagSet(path, "")
		if code, ok := c.parse(fs, args); !ok {
			return code
		}
		if fs.NArg() > 0 {
			return c.errorf(ExitUsage, "%s: unexpected argument %q (the step's inputs are INPUT_* variables)", path, fs.Arg(0))
		}
		a, err := c.newActionStep()
		if err != nil {
			return c.errorf(ExitInconclusive, "action: %v", err)
		}
		return a.finish(step(a))
	}
}

// stepError ends a step: the job fails with code and an error annotation.
type stepError struct {
	code int
	msg  string
}

func (e *stepError) Error() string { return e.msg }

func stepErrorf(code int, format string, a ...any) error {
	return &stepError{code: code, msg: fmt.Sprintf(format, a...)}
}

// sudoKept are the variables sudo keeps for the runs as_root starts (its
// env_reset drops the rest); pass-env adds the names it matches.
var sudoKept = []string{"CI", "GITHUB_ACTIONS", "SYSGATE_BACKEND", "SYSGATE_BASELINES", "SYSGATE_MODE", "SYSGATE_OBSERVATIONS",
	"SYSGATE_INCREMENTAL", "SYSGATE_RECORD_RUNS", "SYSGATE_USER", "SYSGATE_READ_ONLY", "NO_COLOR"}

// actionStep is one step's state: its environment (what it passes on to
// what it runs), what sudo keeps, and its temporaries.
type actionStep struct {
	c        *Command
	env      []string
	keep     []string
	inGate   bool     // errors also write the code output
	title    string   // of the error annotation (default sysgate)
	prefix   string   // of the error on stderr (default sysgate action)
	scratch  []string // removed when the step ends
	rootOut  string   // root's run directory, removed as root
	sudo     *bool    // passwordless sudo, asked once
	self     string   // this sysgate binary
	cwd      string
	uid, gid int
}

func (c *Command) newActionStep() (*actionStep, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return &actionStep{c: c, env: slices.Clone(c.environ()), keep: slices.Clone(sudoKept), self: self, cwd: cwd,
		uid: os.Getuid(), gid: os.Getgid()}, nil
}

func (a *actionStep) getenv(key string) string {
	for i := len(a.env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(a.env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

func (a *actionStep) getenvOr(key, def string) string {
	if v := a.getenv(key); v != "" {
		return v
	}
	return def
}

func (a *actionStep) setenv(key, value string) { a.env = append(a.env, key+"="+value) }

// input is the action's input name as action.yml maps it (INPUT_NAME).
func (a *actionStep) input(name string) string {
	return a.getenv("INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
}

// inputOr is the input, else def where it is empty (action.yml's default
// when the step runs outside GitHub).
func (a *actionStep) inputOr(name, def string) string {
	if v := a.input(name); v != "" {
		return v
	}
	return def
}

// output appends a step output to $GITHUB_OUTPUT.
func (a *actionStep) output(name, value string) error {
	path := a.getenv("GITHUB_OUTPUT")
	if path == "" {
		return stepErrorf(ExitUsage, "GITHUB_OUTPUT is not set: run inside a GitHub Actions step or scripts/action-dry-run.sh")
	}
	var b strings.Builder
	_ = action.WriteOutput(&b, name, value)
	return appendTo("GITHUB_OUTPUT", path, b.String())
}

// summary appends to the step summary, where the runner names one.
func (a *actionStep) summary(text string) error {
	if path := a.getenv("GITHUB_STEP_SUMMARY"); path != "" {
		return appendTo("GITHUB_STEP_SUMMARY", path, text)
	}
	return nil
}

// appendTo appends text to one of the runner's files (what names it),
// following no link (safefile.OpenAppend).
func appendTo(what, path, text string) error {
	f, err := safefile.OpenAppend(path, 0o644)
	if err != nil {
		return stepErrorf(ExitInconclusive, "%s: %v", what, err)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return stepErrorf(ExitInconclusive, "%s: %v", what, err)
	}
	return nil
}

// finish ends the step: 0, or err's code with an error annotation (and,
// in the gate, the code output). Temporaries go either way.
func (a *actionStep) finish(err error) int {
	a.cleanup()
	if err == nil {
		return ExitOK
	}
	code := ExitInconclusive
	var se *stepError
	var ie *action.InputError
	switch {
	case errors.As(err, &se):
		code = se.code
	case errors.As(err, &ie):
		code = ExitUsage
	}
	if a.inGate {
		_ = a.output("code", fmt.Sprint(code))
	}
	title, prefix := a.title, a.prefix
	if title == "" {
		title, prefix = "sysgate", "sysgate action"
	}
	fmt.Fprintf(a.c.Stdout, "::error title=%s::%s\n", title, err)
	fmt.Fprintf(a.c.Stderr, "%s: %s\n", prefix, err)
	return code
}

// tempDir makes a temporary directory under RUNNER_TEMP (the runner
// empties it after the job), removed when the step ends.
func (a *actionStep) tempDir() (string, error) {
	d, err := os.MkdirTemp(a.runnerTemp(), "sysgate.")
	if err != nil {
		return "", stepErrorf(ExitInconclusive, "a temporary directory: %v", err)
	}
	a.scratch = append(a.scratch, d)
	return d, nil
}

func (a *actionStep) runnerTemp() string {
	for _, k := range []string{"RUNNER_TEMP", "TMPDIR"} {
		if v := a.getenv(k); v != "" {
			return v
		}
	}
	return "/tmp"
}

func (a *actionStep) cleanup() {
	for _, d := range a.scratch {
		_ = os.RemoveAll(d)
	}
	a.scratch = nil
	if a.rootOut != "" {
		_ = a.asRoot("rm", "-rf", "--", a.rootOut).Run()
		a.rootOut = ""
	}
}

// escalates: as_root runs as another user than this one (passwordless
// sudo, as on a hosted runner).
func (a *actionStep) escalates() bool {
	if a.sudo == nil {
		ok := a.uid != 0 && exec.Command("sudo", "-n", "true").Run() == nil
		a.sudo = &ok
	}
	return *a.sudo
}

// asRoot is a command run as root: directly when this is root (a
// container job), through passwordless sudo where it exists (sudo keeps
// SUDO_UID, so sysgate runs the agent as the job's user), else as this
// user (the notify backend needs no privilege). Its output goes to the
// step's.
func (a *actionStep) asRoot(argv ...string) *exec.Cmd {
	if a.escalates() {
		argv = append([]string{"sudo", "-n", "--preserve-env=" + strings.Join(a.keep, ","), "env", "PATH=" + a.getenv("PATH")}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = a.env
	cmd.Stdout, cmd.Stderr = a.c.Stdout, a.c.Stderr
	return cmd
}

// command is a command with the step's environment and output.
func (a *actionStep) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = a.env, a.c.Stdout, a.c.Stderr
	return cmd
}

// outputOf runs cmd and returns what it printed, trimmed.
func (a *actionStep) outputOf(cmd *exec.Cmd) (string, error) {
	var out strings.Builder
	cmd.Stdout = &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}

// exitCode is a finished command's exit code: 0, its own, else 3 (it
// could not start).
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() > 0 {
		return exit.ExitCode()
	}
	return ExitInconclusive
}

// sysgate runs a verb of this binary in this process, with the step's
// environment; nil writers are the step's own.
func (a *actionStep) sysgate(stdout, stderr io.Writer, args ...string) int {
	sub := &Command{Stdin: strings.NewReader(""), Stdout: a.c.Stdout, Stderr: a.c.Stderr, Env: a.env}
	if stdout != nil {
		sub.Stdout = stdout
	}
	if stderr != nil {
		sub.Stderr = stderr
	}
	return sub.Main(append([]string{"sysgate"}, args...))
}

// say prints one line of the step's log.
func (a *actionStep) say(format string, args ...any) {
	fmt.Fprintf(a.c.Stdout, "sysgate: "+format+"\n", args...)
}
