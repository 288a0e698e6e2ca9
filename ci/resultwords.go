package ci

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/verdict"
)

// Summary is a few lines about a run: agent, mode, verdict and why. It
// is what Ginkgo shows for a spec's result (gatetest.ReportResult) and
// what a test prints about a run it did not expect.
func Summary(r *verdict.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s): %s", term(r.Agent), r.Mode, term(strings.Join(r.Command, " ")), r.Verdict)
	if r.Inconclusive != "" {
		fmt.Fprintf(&b, ": %s", reasons(r.Inconclusive))
	}
	fmt.Fprintf(&b, "; %s from %s", Count(r.Events, "logged syscall", "logged syscalls"),
		Count(len(r.Processes), "process", "processes"))
	if r.AgentFailed() {
		fmt.Fprintf(&b, "; agent %s", ExitText(r))
	}
	if len(r.Violations) > 0 {
		fmt.Fprintf(&b, "\n%s", r.Violations)
	}
	for _, v := range r.ProgramViolations {
		fmt.Fprintf(&b, "\n  %s", v)
	}
	if h := ArchHint(r); h != "" {
		fmt.Fprintf(&b, "\n  %s", h)
	}
	for _, l := range r.Leaked {
		fmt.Fprintf(&b, "\n  killed %s (%s, pid %d) after %v: %s", term(l.Exe), term(l.Comm), l.PID, l.Lived.Round(time.Millisecond), term(l.Cause))
	}
	if note := NotKeptNote(r.NotKept); note != "" {
		fmt.Fprintf(&b, "\n  %s", note)
	}
	return b.String()
}

// ExitText says how the agent's first process ended: "exited 0", "killed
// by segmentation fault", "timed out".
func ExitText(r *verdict.Result) string {
	switch {
	case r.TimedOut:
		return "timed out"
	case r.Signal != "":
		return "killed by " + r.Signal
	}
	return fmt.Sprintf("exited %d", r.ExitStatus)
}

// ArchHint explains a run whose environment nobody has recorded yet: a
// MissingArch run, or one whose baselines pick a layer that does not
// exist (Unrecorded). "" otherwise. Every report shows it in place of
// the run's new syscalls, which are the whole runtime's.
//
// An unrecorded layer is named first: recording it also gives the arch
// its list where the stack's only list lives in its layers.
func ArchHint(r *verdict.Result) string {
	if len(r.Unrecorded) == 0 {
		if r.MissingArch {
			return fmt.Sprintf("The baselines have no %s list yet, so every syscall of this run counts as new. Record one on an %s machine "+
				"(sysgate record --merge), or let the baseline-update workflow's %s shard write it.",
				r.Arch, r.Arch, r.Arch)
		}
		return ""
	}
	u := r.Unrecorded[0]
	cmd := "sysgate record --merge -o " + ShellQuote(u.File)
	if len(r.Baselines) > 0 {
		cmd = "sysgate record --merge -o " + ShellQuote(r.Baselines[len(r.Baselines)-1])
	}
	cmd += RootFlags(r) + " --"
	for _, a := range r.Command {
		cmd += " " + ShellQuote(a)
	}
	return fmt.Sprintf("Unrecorded environment: nobody has recorded the layer %s for %s (%s:%d picks it with %s), so this run was checked without it "+
		"and its %s count as new. Record it here with `%s`, or let the baseline-update workflow record on this runner.",
		u.Path, u.Environment(), u.File, u.Line, u.Pattern, Count(len(r.Violations), "syscall", "syscalls"), cmd)
}

// ShellQuote quotes s for a POSIX shell when it needs it (the commands
// reports tell a reader to run).
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RootFlags are the --root, --bind and --dir flags (each with a leading
// space) that run a command again in the run's root (harness.WithRoot),
// for the commands reports print; "" for a run on the host's.
func RootFlags(r *verdict.Result) string {
	if r.Root == "" {
		return ""
	}
	flags := " --root " + ShellQuote(r.Root)
	for _, b := range r.RootBinds {
		flags += " --bind " + ShellQuote(b)
	}
	if r.RootDir != "" {
		flags += " --dir " + ShellQuote(r.RootDir)
	}
	return flags
}

// WeakenedBanner says how a run's gate was weaker than sysgate's
// default, for every report; "" when it was not: capabilities the agent
// kept (--keep-cap), no PID namespace of its own, fences a run without
// root went without (Weakened), no record of the names it looked up
// (NamesUnrecorded), or entries past verdict.MaxKept.
func WeakenedBanner(r *verdict.Result) string { return strings.Join(WeakenedParts(r), "; ") }

// WeakenedParts are WeakenedBanner's parts, each a way the gate was
// weaker, for reports that name each once across many runs.
func WeakenedParts(r *verdict.Result) []string {
	var parts []string
	if len(r.KeptCapabilities) > 0 {
		parts = append(parts, "the agent kept "+strings.Join(r.KeptCapabilities, ", ")+
			" (--keep-cap), which sysgate otherwise takes away: a root agent can use it to reach sysgate, the audit log or the kernel")
		if slices.Contains(r.KeptCapabilities, "CAP_NET_RAW") {
			parts = append(parts, "with CAP_NET_RAW the agent can set a source route (IP_OPTIONS, or an IP_RETOPTS message on sendmsg): "+
				"its packets then go to the route's first hop, while the network section judges only the address in the call")
		}
	}
	if r.IsolationUnavailable != "" {
		parts = append(parts, "process isolation unavailable: "+r.IsolationUnavailable+
			"; the agent could see and signal processes outside its run, read the environment and memory of those of its uid (its caller's among them, with any credentials in it), and one that left its process group could outrun the kill at the end")
	}
	parts = append(parts, r.Weakened...)
	if r.NamesUnrecorded != "" {
		parts = append(parts, "names not recorded: "+r.NamesUnrecorded+
			"; destinations read as addresses, so an entry by name does not match them")
	}
	if note := NotKeptNote(r.NotKept); note != "" {
		parts = append(parts, note)
	}
	return parts
}

// NotKeptNote is the one line every report shows when a run saw more
// than verdict.MaxKept entries of a kind; "" otherwise.
func NotKeptNote(n *verdict.NotKept) string {
	if !n.Any() {
		return ""
	}
	var parts []string
	add := func(c uint64, what string) {
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%d more %s", c, what))
		}
	}
	add(n.ProcessCalls, "calls by processes")
	add(n.ProgramExecs, "execs of programs")
	add(n.ProgramViolations, "program violations")
	add(n.UnseenExecs, "unseen execs")
	add(n.Leaks, "killed processes")
	add(n.FileViolations, "file violations")
	add(n.LearnedFiles, "file accesses to learn")
	add(n.NetworkViolations, "network violations")
	add(n.LearnedNetwork, "destinations to learn")
	return fmt.Sprintf("%s not kept (a run keeps at most %d of each; they count in the verdict all the same)", strings.Join(parts, ", "), verdict.MaxKept)
}

// BackendText names the backend that ran, and why auto picked it when
// it was not audit: "audit", "notify (auto: audit unavailable: ...)".
// Results from before backends were named read as audit.
func BackendText(r *verdict.Result) string {
	b := string(r.Backend)
	if b == "" {
		b = string(verdict.BackendAudit)
	}
	if r.BackendNote != "" {
		b += " (" + r.BackendNote + ")"
	}
	return b
}

// EventWord is what the run's events are: syscalls the kernel logged
// (audit) or that sysgate's listener was handed (notify).
func EventWord(r *verdict.Result) (one, many string) {
	if r.Backend == verdict.BackendNotify {
		return "notified syscall", "notified syscalls"
	}
	return "logged syscall", "logged syscalls"
}

// DroppedEnvNote says which variables of the caller's environment the
// agent did not get, by name; "" when none.
func DroppedEnvNote(r *verdict.Result) string {
	if len(r.DroppedEnv) == 0 {
		return ""
	}
	return "not passed to the agent: " + strings.Join(r.DroppedEnv, ", ") + " (--pass-env NAME passes one)"
}

// DriftNote is the sentence every report puts next to a run's
// violations: what changed in the environment and what that suggests, or
// that nothing did. "" when there is nothing to say (no violations).
// Syscalls of the scheduling group (a baseline that asks for them
// exactly) are named as scheduling-dependent, never as a behaviour
// change or drift.
func DriftNote(r *verdict.Result) string {
	if len(r.Violations) == 0 || r.Mode == baseline.ModeRecord {
		return ""
	}
	var sched []string
	others := 0
	for _, v := range r.Violations {
		if scheduling.Is(v.Syscall) {
			if !slices.Contains(sched, v.Syscall) {
				sched = append(sched, v.Syscall)
			}
		} else {
			others++
		}
	}
	note := driftNote(r, others)
	if len(sched) == 0 {
		return note
	}
	if note != "" {
		note += "; "
	}
	return note + SchedulingNote(sched)
}

// SchedulingNote is what a report says of violations that are syscalls
// of the scheduling group: a baseline with "scheduling: exact" (or a run
// with --scheduling exact) counts them, but whether a run makes them is
// the scheduler's choice, not the agent's.
func SchedulingNote(names []string) string {
	them, are := "it", "is a scheduling-dependent call"
	if len(names) > 1 {
		them, are = "them", "are scheduling-dependent calls"
	}
	return strings.Join(names, ", ") + " " + are + ": whether a run makes " + them +
		" depends on scheduling and timing alone, not on what the agent does; the baselines ask for the scheduling group exactly (scheduling: exact or --scheduling exact): add " +
		them + ", or drop that setting to allow the group (docs/scheduling.md)"
}

// driftNote is DriftNote for the n violations outside the scheduling
// group; "" for none.
func driftNote(r *verdict.Result, n int) string {
	if r.Drift == nil || n == 0 {
		return ""
	}
	what := "these " + strconv.Itoa(n) + " new syscalls are"
	if n == 1 {
		what = "this new syscall is"
	}
	switch {
	case !r.Drift.Recorded:
		return "the baselines carry no environment fingerprint for " + r.Arch.String() + " (recorded before sysgate wrote one): re-record them to tell environment drift from behaviour changes"
	case len(r.Drift.Changes) == 0:
		return "same environment as recorded: this is a behaviour change"
	}
	return "environment drift: " + baseline.DescribeChanges(r.Drift.Changes) + ": " + what +
		" most likely environment drift; re-record the baselines in this environment (sysgate record, or the baseline-update workflow) and review the diff"
}

// DriftLine is what the text report says of a check or enforce run whose
// environment differs from the recorded one when DriftNote has nothing
// to say (no new syscalls): a version change stays visible even when
// only programs differ, or nothing does. "" otherwise.
func DriftLine(r *verdict.Result) string {
	if DriftNote(r) != "" || r.Drift == nil || len(r.Drift.Changes) == 0 || r.Mode == baseline.ModeRecord {
		return ""
	}
	return "environment drift: " + baseline.DescribeChanges(r.Drift.Changes) + " since the baselines were recorded"
}

// ShimNote says that a run's command was a version manager's shim and
// what ran in its place, or why the shim ran as it is; "" for none.
func ShimNote(s *verdict.ShimResolution) string {
	if s == nil {
		return ""
	}
	if s.Interpreter == "" {
		return term("the command is " + s.Manager + "'s shim " + s.Shim + ", run as is: " + s.Problem +
			"; the shim and " + s.Manager + "'s own programs are part of the run (give the interpreter's path as the command: `" +
			s.Manager + " which " + filepath.Base(s.Shim) + "`)")
	}
	note := "the command is " + s.Manager + "'s shim " + s.Shim + ": started " + s.Interpreter + ", the interpreter " +
		s.Manager + " names for this directory and environment, in its place"
	if s.PathAdded != "" {
		note += " (with " + s.PathAdded + " first on PATH, as " + s.Manager + " exec puts it)"
	}
	return term(note)
}

// ShimBrief is ShimNote for a check or enforce run: record explained the
// shim once, in full; every later check repeats only what ran in its
// place ("pyenv shim: started /root/.pyenv/versions/3.11.7/bin/python3.11").
// A shim that ran as it is keeps the full note: it says what to change.
func ShimBrief(s *verdict.ShimResolution) string {
	if s == nil || s.Interpreter == "" {
		return ShimNote(s)
	}
	return term(s.Manager + " shim: started " + s.Interpreter)
}

// ModifiedMessage is what every report says about a baseline the agent
// changed during its run (verdict.Result.ModifiedBaselines).
func ModifiedMessage(file string) string {
	return fmt.Sprintf("the agent modified its own baseline %s", file)
}

// GuardChangedMessage is what every report says about a file a
// harness.BaselineGuard found changed (verdict.Result.ChangedBaselines).
func GuardChangedMessage(file string) string {
	return fmt.Sprintf("baseline %s changed since the gate's first run (sha256 differs): a run no longer checks what was reviewed", file)
}
