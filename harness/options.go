package harness

import (
	"io"
	"os"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/observe"
	"github.com/sysgate/sysgate/verdict"
)

// Defaults for a run.
const (
	DefaultGrace = 5 * time.Second // how long orphans may outlive the agent
)

// Agent is the command to run and its I/O. Env nil means the caller's
// environment without DroppedEnv; an explicit Env is set exactly (see
// WithEnvFilter). Stdin nil means /dev/null; Stdout/Stderr nil discard.
//
// The agent starts with descriptors 0, 1 and 2 and ExtraFiles, nothing
// else: every other descriptor of the caller, inheritable or not, is
// closed on exec. It gets a session of its own without a controlling
// terminal, even when Stdin is the caller's terminal; WithTTY gives it a
// terminal of its own instead.
type Agent struct {
	// Name names the agent in reports; "" names it by AgentName's rules
	// (its script, else its directory: never an interpreter's name).
	Name    string
	Command []string
	Dir     string
	Env     []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// ExtraFiles are descriptors passed on purpose: entry i becomes the
	// agent's fd 3+i (a nil entry leaves that number closed), as in
	// os/exec. Each is a channel the gate does not watch: a socket passed
	// here sends without a socket() or connect() call.
	ExtraFiles []*os.File
}

// Option configures Run.
type Option func(*runConfig)

type runConfig struct {
	baselines   []string
	selector    baseline.Selector // picks the baselines' layers (runenv.CommandEnvironment)
	profile     *baseline.Profile
	mode        baseline.Mode
	action      baseline.Action
	timeout     time.Duration
	grace       time.Duration
	setUser     bool
	uid, gid    uint32
	progress    func(*observe.Syscall)
	observation string
	// allowAgentFailure: an agent that exits non-zero or dies of a signal
	// does not fail a run whose syscalls are clean.
	allowAgentFailure bool
	keepCaps          []string
	tty               bool
	noPidns           bool
	keepShims         bool // WithoutShimResolution
	phases            func(string, time.Duration)
	acceptCommand     string
	unisolatedOK      bool
	backend           verdict.Backend
	notify            bool // resolved from backend by Run
	argBlind          bool
	noPrograms        bool
	filterCache       bool // WithFilterCache
	noFiles           bool
	noNetwork         bool
	upstreams         []string
	incremental       bool     // WithIncremental
	readOnly          []string // more files the agent's mount namespace binds read-only
	filterEnv         bool
	passEnv           []string
	snapshots         []*baseline.Snapshot // files compared after the run besides the baselines
	guards            []*BaselineGuard     // WithBaselineGuard: the gate's baselines
	root              string               // WithRoot: the run's / ("" the host's)
	rootBinds         []kernel.BindFile
	scheduling        scheduling.Mode // WithScheduling
}

// WithScheduling treats the built-in scheduling group (package
// baseline/scheduling) as m whatever the baselines say: scheduling.Exact
// makes its syscalls count like any other, scheduling.Grouped allows
// them; zero leaves it to the files' "scheduling:" key.
func WithScheduling(m scheduling.Mode) Option { return func(c *runConfig) { c.scheduling = m } }

// WithBaselines checks (or, in record mode, diffs) against these baseline
// files, layered as baseline.LoadStack does.
func WithBaselines(paths ...string) Option {
	return func(c *runConfig) { c.baselines = append(c.baselines, paths...) }
}

// WithProfile uses an already loaded profile (ignored with WithBaselines).
func WithProfile(p *baseline.Profile) Option { return func(c *runConfig) { c.profile = p } }

// WithIncremental makes a record run incremental: the filter allows what
// the run's baselines hold, as in check mode, so only the rest is logged
// (or notified) and the run costs about what a check costs. The
// observation then holds only the syscalls, argument classes and programs
// the baselines lack (Observation.Incremental); which entries went unused
// cannot be seen. Without baselines, or outside record mode, it changes
// nothing.
func WithIncremental() Option { return func(c *runConfig) { c.incremental = true } }

// WithMode sets the mode; default: check with a baseline, record without.
func WithMode(m baseline.Mode) Option { return func(c *runConfig) { c.mode = m } }

// WithEnforceAction picks ERRNO(EPERM) (default) or KILL for enforce mode.
func WithEnforceAction(a baseline.Action) Option { return func(c *runConfig) { c.action = a } }

// WithTimeout bounds the agent's run; at the timeout the whole tree is
// killed and the result is inconclusive unless it already has violations.
func WithTimeout(d time.Duration) Option { return func(c *runConfig) { c.timeout = d } }

// WithGrace is how long processes may outlive the agent before they are
// killed and reported as leaked (default DefaultGrace).
func WithGrace(d time.Duration) Option { return func(c *runConfig) { c.grace = d } }

// WithUser runs the agent as uid/gid (no supplementary groups).
func WithUser(uid, gid uint32) Option {
	return func(c *runConfig) { c.setUser, c.uid, c.gid = true, uid, gid }
}

// WithProgress calls fn for every event as it arrives, from auditlog's
// dispatch goroutine, one call at a time; fn must not block.
func WithProgress(fn func(ev *observe.Syscall)) Option {
	return func(c *runConfig) { c.progress = fn }
}

// WithObservationFile makes a conclusive record-mode run merge its
// observation into path (the file and its directory created if missing; safe across parallel
// processes) and name it in Result.ObservationFile: the run learns, as
// make baseline-update does, and StayWithinBaseline passes it. Other modes
// write nothing.
func WithObservationFile(path string) Option { return func(c *runConfig) { c.observation = path } }

// WithAllowAgentFailure makes a clean run clean even when the agent exited
// non-zero or was killed by a signal, for callers that check the agent's
// status themselves (Result.ExitStatus, Result.Signal). By default such a
// run is VerdictAgentFailed: `sysgate check -- pytest` must not hide a red
// test run.
func WithAllowAgentFailure() Option { return func(c *runConfig) { c.allowAgentFailure = true } }

// WithKeepCapabilities lets a root agent keep these capabilities
// ("CAP_SYS_PTRACE" or "sys_ptrace"), each one of FencedCapabilities,
// which every agent otherwise loses. Every kept one weakens the gate and
// is named in Result.KeptCapabilities and in every report.
func WithKeepCapabilities(names ...string) Option {
	return func(c *runConfig) { c.keepCaps = append(c.keepCaps, names...) }
}

// WithReadOnly binds these files read-only in the agent's mount namespace
// (missing ones are skipped), as the run's baselines and observation file
// are: outputs the caller writes after the run, such as a result file.
func WithReadOnly(paths ...string) Option {
	return func(c *runConfig) { c.readOnly = append(c.readOnly, paths...) }
}

// WithoutPIDNamespace runs the agent without a PID namespace of its own,
// as where the kernel refuses one: for measuring what isolation costs
// (make bench). The Result says isolation was unavailable, and why.
func WithoutPIDNamespace() Option { return func(c *runConfig) { c.noPidns = true } }

// WithTTY gives the agent a fresh pseudo-terminal as its controlling
// terminal and fds 0-2, relayed to and from Agent.Stdin and Agent.Stdout
// (as `docker run -t` and `script` do), for agents that need a terminal.
// What it pushes into its input (TIOCSTI) it reads back itself; the
// caller's terminal never gets it. When Stdin is a terminal it is put in
// raw mode for the run, and its window size is copied. Stderr is unused:
// a terminal has one output.
func WithTTY() Option { return func(c *runConfig) { c.tty = true } }

// WithoutArgClasses switches argument classes off: a baseline's class
// entries ("socket(AF_UNIX)") allow their syscall with any arguments, and
// record learns syscall names only. For measuring what learning the
// classes costs, and for showing what they catch; every report of such a
// run lists it under WEAKENED GATE.
func WithoutArgClasses() Option { return func(c *runConfig) { c.argBlind = true } }

// WithoutPrograms switches program observation off: execs are not handed
// to the run's listener, Result.Programs stays empty and a baseline's
// programs section gates nothing. For measuring what observing execs
// costs, and for showing what program gating catches; every report of
// such a run lists it under WEAKENED GATE.
func WithoutPrograms() Option { return func(c *runConfig) { c.noPrograms = true } }

// WithoutFiles switches file observation off: no audit syscall rules
// (audit backend), no file calls held (notify), Result.FileViolations
// stays empty and a baseline's files section gates nothing. For
// measuring what observing files costs, and for showing what the files
// gate catches; every report of such a run lists it under WEAKENED GATE.
func WithoutFiles() Option { return func(c *runConfig) { c.noFiles = true } }

// WithoutNetwork switches network observation off: no audit rules for
// socket calls (audit backend), no socket calls held (notify), no
// recording forwarder, Result.NetworkViolations stays empty and a
// baseline's network section gates nothing. For measuring what
// observing the network costs, and for showing what the network gate
// catches; every report of such a run lists it under WEAKENED GATE.
func WithoutNetwork() Option { return func(c *runConfig) { c.noNetwork = true } }

// WithResolvers names the resolvers the run's recording DNS forwarder
// passes the agent's lookups to ("addr", "addr:port" or "[v6]:port"),
// instead of the machine's /etc/resolv.conf: a test's own DNS server on
// loopback, or a CI job's internal resolver. Under WithoutNetwork the
// forwarder still answers the run's lookups there, and records nothing.
func WithResolvers(addrs ...string) Option {
	return func(c *runConfig) { c.upstreams = append(c.upstreams, addrs...) }
}

// WithEnvFilter drops DroppedEnv from the agent's environment, an explicit
// Agent.Env too, except the variables whose names match one of pass
// (path.Match globs, e.g. "GITHUB_*"). The names dropped (never the
// values) are in Result.DroppedEnv. Without this option only an inherited
// environment (Agent.Env nil) is filtered, with nothing passed back.
func WithEnvFilter(pass ...string) Option {
	return func(c *runConfig) { c.filterEnv, c.passEnv = true, append(c.passEnv, pass...) }
}

// WithAcceptCommand names the command that accepts a run's new syscalls
// where the caller's users run it (the suites: make baseline-update; the
// CLI's reports build theirs from the run), kept in Result.AcceptCommand
// for every report; none by default: a library does not know its
// caller's build.
func WithAcceptCommand(cmd string) Option {
	return func(c *runConfig) { c.acceptCommand = cmd }
}
