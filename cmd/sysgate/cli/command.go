package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/untrusted"
	"github.com/sysgate/sysgate/runenv"
)

// Exit codes shared by every verb.
const (
	ExitOK           = 0 // clean: nothing outside the baseline, or the verb succeeded
	ExitViolation    = 1 // a regression was found (new syscall, stale baseline with --strict, ...)
	ExitUsage        = 2 // bad flags or bad input (malformed baseline, unknown syscall, ...)
	ExitInconclusive = 3 // the environment kept sysgate from a verdict (loss, privileges, kernel settings, agent not started)
	ExitAgentFailed  = 4 // the syscalls were clean, but the agent exited non-zero or died of a signal
)

// A violation outranks everything: a run that made a new syscall exits 1
// whatever else went wrong (the other causes are reported beside it).

// Command is one invocation of sysgate.
type Command struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Env is sysgate's own environment ("KEY=value"); nil means the
	// process's. The CLI is the only library layer that reads it.
	Env []string

	started time.Time // Main's start: SYSGATE_PHASES times the CLI's own part
}

// environ is sysgate's own environment.
func (c *Command) environ() []string {
	if c.Env == nil {
		return os.Environ()
	}
	return c.Env
}

// loadStack loads baselines as this machine picks their layers (commands
// that run no agent: validate, diff, export, compare).
func (c *Command) loadStack(paths ...string) (*baseline.Profile, error) {
	return baseline.LoadStackFor(runenv.HostSelector(c.environ()), paths...)
}

// getenv reads sysgate's own environment.
func (c *Command) getenv(key string) string {
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

type verb struct {
	path    string // "baseline validate"
	summary string
	run     func(c *Command, args []string) int
}

var verbs = map[string]verb{}

// register adds a verb. path is the words that select it.
func register(path, summary string, run func(c *Command, args []string) int) {
	if _, dup := verbs[path]; dup {
		panic("cli: verb registered twice: " + path)
	}
	verbs[path] = verb{path: path, summary: summary, run: run}
}

// Main runs the verb named by args[1:] and returns the process exit code.
func (c *Command) Main(args []string) int {
	c.started = time.Now()
	if c.Stdin == nil {
		c.Stdin = strings.NewReader("")
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	if len(args) > 0 {
		args = args[1:]
	}
	if len(args) > 1 && args[0] == "help" {
		return c.help(args[1:])
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		c.usage(c.Stdout, "")
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		return c.runVersion(args[1:])
	}
	// Longest match first: "baseline validate" before "baseline".
	for n := min(len(args), 3); n >= 1; n-- {
		if v, ok := verbs[strings.Join(args[:n], " ")]; ok {
			return v.run(c, args[n:])
		}
	}
	if group := groupVerbs(args[0]); len(group) > 0 {
		return c.groupUsage(args[0], group, args[1:])
	}
	c.usage(c.Stderr, args[0])
	return ExitUsage
}

// help answers "sysgate help VERB...": the verb's help on stdout, as
// "sysgate VERB -h" prints it on stderr; a command group's verbs; exit 2
// for a word that names neither.
func (c *Command) help(words []string) int {
	for n := min(len(words), 3); n >= 1; n-- {
		if v, ok := verbs[strings.Join(words[:n], " ")]; ok {
			onStdout := *c
			onStdout.Stderr = c.Stdout
			return v.run(&onStdout, []string{"-h"})
		}
	}
	if group := groupVerbs(words[0]); len(group) > 0 {
		return c.groupUsage(words[0], group, []string{"-h"})
	}
	c.usage(c.Stderr, strings.Join(words, " "))
	return ExitUsage
}

// groupVerbs are the verbs under a command group ("baseline": "baseline
// diff", "baseline fmt", ...), sorted; none when word is not a group.
func groupVerbs(word string) []string {
	var paths []string
	for p := range verbs {
		if strings.HasPrefix(p, word+" ") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}

// groupUsage answers a command group without a known verb: its verbs, one
// line each, on stdout for -h (exit 0), else on stderr (exit 2).
func (c *Command) groupUsage(group string, paths, rest []string) int {
	w, code := c.Stderr, ExitUsage
	switch {
	case len(rest) > 0 && (rest[0] == "-h" || rest[0] == "--help" || rest[0] == "help"):
		w, code = c.Stdout, ExitOK
	case len(rest) > 0:
		fmt.Fprintf(w, "sysgate: unknown command %q\n\n", group+" "+rest[0])
	}
	fmt.Fprintf(w, "Usage: sysgate %s COMMAND [FLAGS] [ARGS]\n\nCommands:\n", group)
	for _, p := range paths {
		fmt.Fprintf(w, "  %-20s %s\n", p, verbs[p].summary)
	}
	fmt.Fprintf(w, "\nRun 'sysgate %s COMMAND -h' for a command's flags.\n", group)
	return code
}

func (c *Command) usage(w io.Writer, unknown string) {
	if unknown != "" {
		fmt.Fprintf(w, "sysgate: unknown command %q\n\n", unknown)
	}
	fmt.Fprintln(w, "sysgate: a CI gate for the syscalls AI agents and their tools make")
	fmt.Fprintln(w, "\nUsage: sysgate COMMAND [FLAGS] [ARGS]\n\nCommands:")
	paths := make([]string, 0, len(verbs))
	for p := range verbs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(w, "  %-20s %s\n", p, verbs[p].summary)
	}
	fmt.Fprintln(w, "\nExit codes: 0 clean, 1 violation found, 2 usage or bad input, 3 inconclusive or environment error, 4 the agent itself failed (a clean run).")
	fmt.Fprintln(w, "Run 'sysgate help COMMAND' (or 'sysgate COMMAND -h') for a command's flags, 'sysgate --version' for the version.")
}

// flagSet returns a FlagSet for a verb that reports errors to c.Stderr and
// never exits the process.
func (c *Command) flagSet(path, argsUsage string) *flag.FlagSet {
	fs := flag.NewFlagSet("sysgate "+path, flag.ContinueOnError)
	fs.SetOutput(c.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.Stderr, "Usage: sysgate %s [FLAGS] %s\n\n%s\n\nFlags:\n", path, argsUsage, verbs[path].summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags and maps -h and flag errors to exit codes. ok is false
// when the caller should return code.
func (c *Command) parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	return ExitOK, true
}

// errorf prints "sysgate: ..." to stderr and returns code. An error
// among args that is a write to a closed pipe (sysgate report annotations
// | head) prints nothing: the reader has what it wanted, and the message
// would only land in the middle of the pipeline's output.
func (c *Command) errorf(code int, format string, args ...any) int {
	for _, a := range args {
		if err, ok := a.(error); ok && closedPipe(err) {
			return code
		}
	}
	fmt.Fprintf(c.Stderr, "sysgate: %s\n", terminalLines(fmt.Sprintf(format, args...)))
	return code
}

// closedPipe says whether err is a write to a pipe whose reader is gone
// (EPIPE: main ignores SIGPIPE, so writes fail instead of killing sysgate).
func closedPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// terminalLines escapes each line of a message for a terminal: errors
// and warnings quote paths and mismatches an agent named.
func terminalLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = untrusted.Terminal(l)
	}
	return strings.Join(lines, "\n")
}

// required is an argument a verb cannot run without, and whether it was
// given.
type required struct {
	name  string
	given bool
}

// require prints one line per missing argument, then the usage, and
// returns ExitUsage, false when anything is missing.
func (c *Command) require(fs *flag.FlagSet, verb string, args ...required) (code int, ok bool) {
	missing := false
	for _, a := range args {
		if !a.given {
			c.errorf(ExitUsage, "%s: missing %s", verb, a.name)
			missing = true
		}
	}
	if missing {
		fs.Usage()
		return ExitUsage, false
	}
	return ExitOK, true
}
