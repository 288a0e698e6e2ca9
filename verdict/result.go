package verdict

import (
	"fmt"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
)

// Verdict is the outcome of one run (ci.Verdict is the same type: a
// report ranks them, and adds ci.VerdictRecorded).
type Verdict string

// Verdicts. A run is never clean when sysgate could not see all of it.
const (
	VerdictClean        Verdict = "clean"        // nothing outside the baseline, and the agent succeeded
	VerdictViolation    Verdict = "violation"    // syscalls outside the baseline (whatever else went wrong)
	VerdictInconclusive Verdict = "inconclusive" // lost records, failed barrier, untracked tree, timeout
	// VerdictAgentFailed: the syscalls were clean, but the agent exited
	// non-zero or was killed by a signal (see WithAllowAgentFailure).
	VerdictAgentFailed Verdict = "agent-failed"
)

// ReportEntryName is the name of the Ginkgo report entry holding a run's
// Result (its JSON form): gatetest.ReportResult writes it, ci reads results back
// from Ginkgo JSON reports by this name.
const ReportEntryName = "sysgate result"

// Result is everything one run found. It is the one model behind the CLI's
// text, JSON and GitHub output, the matchers and the ci reports.
//
// JSON field names (stable; ci and scripts rely on them):
//
//	agent, command, mode ("record"|"check"|"enforce"), baselines, verdict,
//	inconclusive (reason, "" when conclusive), session, observed
//	(baseline.Observation: agent, runs, syscalls{arch:{name:count}}),
//	violations[] {arch, syscall, number, count, risk, pid, exe, comm, file, line},
//	unused[] (baseline.Finding: arch, syscall, risk, file, line),
//	processes[] {pid, exe, comm, events}, leaked[] {pid, exe, comm, lived (ns), cause},
//	loss (observe.Loss), events, unknown_abi, exit_status, signal,
//	timed_out, started, duration (ns), arch (native arch of the run),
//	missing_arch, observation_file, kept_capabilities (omitted when unset),
//	refused[] {arch, syscall, count, risk}, unmonitored[] {arch, syscall,
//	reason, unseen, file, line}, dropped_env[] (names, omitted when none),
//	modified_baselines[] (paths), warnings[] and isolation_unavailable
//	(omitted when empty), not_kept {process_calls, program_execs,
//	program_violations, unseen_execs, leaks} (counts past MaxKept;
//	omitted when nothing was dropped).
//
// In check and enforce mode the kernel logs only syscalls outside the
// baseline, so observed holds just those; in record mode it holds all.
type Result struct {
	Agent   string   `json:"agent"`
	Command []string `json:"command"`
	// Root is the run's own root file system (WithRoot), RootBinds what
	// was bound into it ("SOURCE:TARGET"); "" and none: the host's.
	Root      string   `json:"root,omitempty"`
	RootBinds []string `json:"root_binds,omitempty"`
	// RootDir is the agent's directory in Root (the host's working
	// directory seldom exists there).
	RootDir string        `json:"root_dir,omitempty"`
	Mode    baseline.Mode `json:"mode"`
	// Incremental: a record run whose filter allowed its baselines
	// (WithIncremental), so Observed holds only what they lack and Unused
	// is not known.
	Incremental  bool                  `json:"incremental,omitempty"`
	Arch         scmp.Arch             `json:"arch"` // the native arch the run ran on
	Baselines    []string              `json:"baselines"`
	Verdict      Verdict               `json:"verdict"`
	Inconclusive string                `json:"inconclusive"`
	Session      uint32                `json:"session"`
	Observed     *baseline.Observation `json:"observed"`
	Violations   Violations            `json:"violations"`
	Unused       []baseline.Finding    `json:"unused"`
	Processes    []Process             `json:"processes"`
	Leaked       []Leak                `json:"leaked"`
	Loss         observe.Loss          `json:"loss"`
	Events       uint64                `json:"events"`
	UnknownABI   uint64                `json:"unknown_abi"` // records of an audit arch sysgate cannot name
	UID          uint32                `json:"uid"`         // the user the agent ran as (--user, SUDO_UID, or sysgate's own)
	GID          uint32                `json:"gid"`
	ExitStatus   int                   `json:"exit_status"` // -1 when a signal ended the agent
	Signal       string                `json:"signal"`
	TimedOut     bool                  `json:"timed_out"`
	Started      time.Time             `json:"started"`
	Duration     time.Duration         `json:"duration"` // nanoseconds
	// MissingArch is set when the baselines of a check or enforce run have
	// no list at all for the arch it ran on: then every syscall counts as
	// new, and the fix is recording that arch's list (see ci.ArchHint).
	MissingArch bool `json:"missing_arch,omitempty"`
	// Environment is where the run ran (baseline.Environment): the host,
	// and the runtimes among the programs its processes ran.
	Environment *baseline.Environment `json:"environment,omitempty"`
	// Drift compares it with the environment the baselines were recorded
	// in (check and enforce runs with baselines); see ci.DriftNote.
	Drift *Drift `json:"drift,omitempty"`
	// Unrecorded are the layers the baselines pick for this environment
	// that nobody has recorded yet (baseline.UnrecordedLayer): the run was
	// checked without them, and the fix is recording them (ci.ArchHint).
	Unrecorded []baseline.UnrecordedLayer `json:"unrecorded,omitempty"`
	// Selector holds the values the baselines' layered extends entries
	// were picked by (read before the run: runenv.CommandEnvironment).
	Selector baseline.Selector `json:"selector,omitempty"`
	// ObservationFile is where a record-mode run merged its observation
	// (WithObservationFile): the run learned a baseline rather than
	// checking one.
	ObservationFile string `json:"observation_file,omitempty"`
	// Recording: a record of several runs (sysgate record, gatetest.Run)
	// whose observation (Observed) holds all of them; this Result is the
	// last run's.
	Recording *Recording `json:"recording,omitempty"`
	// KeptCapabilities are the FencedCapabilities the agent kept
	// (WithKeepCapabilities, --keep-cap), sorted: each weakens the gate,
	// and every report says so (ci.WeakenedBanner).
	KeptCapabilities []string `json:"kept_capabilities,omitempty"`
	// DroppedEnv names the DroppedEnv variables the caller's environment
	// held and the agent did not get (sorted; never their values).
	DroppedEnv []string `json:"dropped_env,omitempty"`
	// Refused are the attempts at a channel the filter cannot see (an
	// io_uring, a seccomp listener of the agent's own) that the gate
	// refused: neither violations nor syscalls a record run writes.
	Refused []baseline.Finding `json:"refused"`
	// Unmonitored are the channels the baselines opted in to: what the
	// agent did through them went unseen (see baseline.Unmonitored).
	Unmonitored []baseline.Unmonitored `json:"unmonitored"`
	// ModifiedBaselines are baseline files (the run's, everything they
	// extend, a record target) whose bytes changed during the run: the
	// agent wrote to its own gate. Each makes the run a violation.
	ModifiedBaselines []string `json:"modified_baselines,omitempty"`
	// ChangedBaselines are files of the gate's baselines (WithBaselineGuard:
	// every baseline of the suite or the CLI's $SYSGATE_BASELINES) whose
	// bytes changed since the gate's first run, by this run's agent or
	// another's: each makes the run a violation.
	ChangedBaselines []string `json:"changed_baselines,omitempty"`
	// ProtectedBaselines are the files and directories of the gate's
	// baselines bound read-only for the agent (WithBaselineGuard), besides
	// the run's own baselines, which always are.
	ProtectedBaselines []string `json:"protected_baselines,omitempty"`
	// ReadOnly are the caller's paths (WithReadOnly: a CI job's action,
	// tool cache and file-command directory, the run's outputs) that
	// existed and were bound read-only for the agent.
	ReadOnly []string `json:"read_only,omitempty"`
	// AcceptCommand is how a person accepts the run's new syscalls, as the
	// caller named it (WithAcceptCommand); "" when it named none.
	AcceptCommand string `json:"accept_command,omitempty"`
	// Warnings are what the run found on the machine and did not act on
	// (a claim on an abandoned run that cannot be verified), or did (the
	// processes of an abandoned run it killed).
	Warnings []string `json:"warnings,omitempty"`
	// Shim says that the command was a version manager's shim and what
	// ran in its place (nil when it was none); Command stays as given.
	Shim *ShimResolution `json:"shim,omitempty"`
	// IsolationUnavailable says why the run had no PID namespace of its
	// own ("" when it had one): its agent then saw every process of the
	// machine, and one that left its process group could outrun the kill
	// at the end. Every report names it.
	IsolationUnavailable string `json:"isolation_unavailable,omitempty"`
	// Backend is how the run saw the syscalls: BackendAudit or
	// BackendNotify; BackendNote says why auto picked it, when it did not
	// pick audit.
	Backend     Backend `json:"backend"`
	BackendNote string  `json:"backend_note,omitempty"`
	// Weakened names the fences the run went without for lack of
	// privileges (the notify backend without root); every report names
	// them.
	Weakened []string `json:"weakened,omitempty"`
	// Unnamed counts the notify backend's calls whose caller sysgate could
	// not name (its pid not visible here, or gone before it was read):
	// they count in the syscalls, without a pid or program.
	Unnamed uint64 `json:"unnamed,omitempty"`
	// Programs are the executables the run's processes ran (see
	// ProgramRun), sorted by path; ProgramViolations those outside the
	// baselines' programs (none when no file has a programs section:
	// then Weakened says programs were not gated), and exec races.
	Programs          []ProgramRun              `json:"programs,omitempty"`
	ProgramViolations []ProgramViolation        `json:"program_violations,omitempty"`
	UnusedPrograms    []baseline.ProgramFinding `json:"unused_programs,omitempty"`
	// FilesObserved: the run watched the files its processes touched
	// (see WithoutFiles); what they touched is in Observed.Files, by
	// placeholder ({workspace}/out.txt). FileViolations are the accesses
	// outside the baselines' files section (check and enforce, when the
	// baselines have one). UnverifiedFiles are names the observer could
	// not tie to the file the kernel used: each makes the run
	// inconclusive, since the file could be any.
	FilesObserved   bool            `json:"files_observed,omitempty"`
	FileViolations  []FileViolation `json:"file_violations,omitempty"`
	UnverifiedFiles []string        `json:"unverified_files,omitempty"`
	// NetworkObserved: the run watched where its processes' socket calls
	// went (see WithoutNetwork); the destinations are in Observed.Network,
	// by name where a lookup of the run gave one. NetworkViolations are
	// the calls outside the baselines' network section (check and
	// enforce, when the baselines have one), and the names looked up in a
	// pattern of DNS tunnelling. UnverifiedNetwork says why a destination
	// could not be vouched for: each makes the run inconclusive. Names are
	// what the run's processes looked up through its recording forwarder;
	// NamesUnrecorded says why there was none ("" when there was).
	NetworkObserved   bool               `json:"network_observed,omitempty"`
	NetworkViolations []NetworkViolation `json:"network_violations,omitempty"`
	UnverifiedNetwork []string           `json:"unverified_network,omitempty"`
	Names             []ResolvedName     `json:"names,omitempty"`
	NamesUnrecorded   string             `json:"names_unrecorded,omitempty"`
	// UnverifiedExecs counts execs whose program sysgate could not confirm
	// after the fact (the process was gone before /proc showed its new
	// executable); see docs/coverage.md, "Programs: what is and is not seen".
	UnverifiedExecs uint64 `json:"unverified_execs,omitempty"`
	// UnverifiedOutside are those of UnverifiedExecs that named a program
	// outside the baselines' programs (check and enforce, when the
	// baselines gate programs), by program: reports warn about these and
	// only count the rest, which named a program the baseline allows.
	UnverifiedOutside []UnverifiedExec `json:"unverified_outside,omitempty"`
	// NotKept counts what the run saw past MaxKept entries of a kind
	// (nil when nothing): the lists above are then incomplete, and every
	// report says so (ci.WeakenedBanner).
	NotKept *NotKept `json:"not_kept,omitempty"`

	// Attributions are who made each observed syscall first (known to
	// results from a run, not kept in JSON: a decoded result knows them
	// only for its own violations); see ViolationsAgainst.
	Attributions map[CallKey]Attribution `json:"-"`
}

// Recorded reports whether a record run saw syscalls beyond its bases:
// what the run writes into its baseline, not a violation.
func (r *Result) Recorded() bool {
	return r.Mode == baseline.ModeRecord && r.Verdict == VerdictViolation && r.Conclusive()
}

// Conclusive reports whether nothing of the run can have been missed (no
// loss, barrier passed, tree tracked). A violation may come with an
// inconclusive cause: the verdict is still a violation, and Inconclusive
// says what else went wrong.
func (r *Result) Conclusive() bool { return r.Inconclusive == "" && r.Verdict != VerdictInconclusive }

// AgentFailed reports whether the agent's first process exited non-zero
// or was killed by a signal.
func (r *Result) AgentFailed() bool { return r.ExitStatus != 0 || r.Signal != "" }

// Risky returns the violations with a risk class.
func (r *Result) Risky() Violations {
	var out Violations
	for _, v := range r.Violations {
		if v.Risk.Risky() {
			out = append(out, v)
		}
	}
	return out
}

// Saw reports whether the run logged name on any arch.
func (r *Result) Saw(name string) bool {
	if r.Observed == nil {
		return false
	}
	for _, arch := range r.Observed.Arches() {
		if r.Observed.Uses(arch, name) {
			return true
		}
	}
	return false
}

// GomegaString keeps Gomega from dumping the whole struct: one line of
// the run's data, its verdict and how many findings of each kind it has.
// The sentences a reader gets about a run are ci's (ci.Summary).
func (r *Result) GomegaString() string {
	if r == nil {
		return "<nil *verdict.Result>"
	}
	return fmt.Sprintf("*verdict.Result{agent: %q, mode: %s, verdict: %s, inconclusive: %q, events: %d, violations: %d, "+
		"program violations: %d, file violations: %d, network violations: %d, exit status: %d, signal: %q}",
		r.Agent, r.Mode, r.Verdict, r.Inconclusive, r.Events, len(r.Violations),
		len(r.ProgramViolations), len(r.FileViolations), len(r.NetworkViolations), r.ExitStatus, r.Signal)
}

// Recording says how a recording of several runs went: Runs in all,
// LastChange the last run that added an entry to the baseline the runs
// before it would write, Stable whether enough runs after it added
// nothing (baseline.Stability).
type Recording struct {
	Runs       int  `json:"runs"`
	LastChange int  `json:"last_change"`
	Stable     bool `json:"stable"`
}

// RecordingOf is how s's recording went; nil for a single run.
func RecordingOf(s *baseline.Stability) *Recording {
	if s == nil || s.Runs < 2 {
		return nil
	}
	return &Recording{Runs: s.Runs, LastChange: s.LastChange, Stable: s.Stable()}
}

// Normalize makes empty lists encode as [] rather than null.
func (r *Result) Normalize() {
	if r.Baselines == nil {
		r.Baselines = []string{}
	}
	if r.Violations == nil {
		r.Violations = Violations{}
	}
	if r.Unused == nil {
		r.Unused = []baseline.Finding{}
	}
	if r.Leaked == nil {
		r.Leaked = []Leak{}
	}
	if r.Refused == nil {
		r.Refused = []baseline.Finding{}
	}
	if r.Unmonitored == nil {
		r.Unmonitored = []baseline.Unmonitored{}
	}
}
