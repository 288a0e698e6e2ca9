//go:build linux

package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// recordFlags are record's flags beside the shared runFlags.
type recordFlags struct {
	runFlags
	out, obsPath, resultPath string
	// runtime: --runtime NAME records that runtime's own start as a layer
	// (record_runtime.go); header is then the file's head comment.
	runtime, header  string
	extends, against listFlag
	merge            bool
	ciOut            ciOutputs
	// runs: --runs (exact; 0: until stable), maxRuns: --max-runs.
	runs, maxRuns int
}

// policy is how often the flags say to run the agent.
func (rf *recordFlags) policy() baseline.RecordRuns {
	if rf.runs != 0 {
		return baseline.ExactRuns(rf.runs)
	}
	p := baseline.DefaultRecordRuns
	p.Max = rf.maxRuns
	p.Min = min(p.Min, p.Max)
	return p
}

// parseRecord parses and checks record's command line; ok false: exit
// with code.
func (c *Command) parseRecord(args []string) (rf *recordFlags, fs *flag.FlagSet, code int, ok bool) {
	fs = c.flagSet("record", "-o BASELINE -- CMD [ARGS...]")
	rf = &recordFlags{}
	rf.register(fs, "the command's script, else its directory")
	fs.StringVar(&rf.out, "o", "", "the baseline `FILE` to write (required; with --against, default the first of them)")
	fs.Var(&rf.against, "against", "record incrementally against a committed `BASELINE` (repeatable, layered in order): what it allows runs unlogged, as in check, only the rest is logged and added to -o; stale entries are not checked (a record without --against finds them)")
	fs.StringVar(&rf.resultPath, "result", "", "also write the Result as JSON to `FILE`, for sysgate report --result (whatever the run's outcome)")
	fs.Var(&rf.extends, "extends", "a `BASELINE` the written file extends (a runtime base; the file records it relative to itself); repeatable")
	fs.StringVar(&rf.obsPath, "observation", "", "also write the observation (syscalls with counts) as JSON to `FILE`")
	fs.BoolVar(&rf.merge, "merge", false, "add to an existing baseline and observation instead of replacing them")
	fs.IntVar(&rf.runs, "runs", 0, "run the command exactly `N` times and record what the runs did together (1: one run; default: until stable, see --max-runs)")
	fs.IntVar(&rf.maxRuns, "max-runs", baseline.DefaultRecordRuns.Max, fmt.Sprintf("without --runs, run the command until %d runs in a row add nothing to the baseline (at least %d runs), at most `N` times",
		baseline.DefaultRecordRuns.Quiet, baseline.DefaultRecordRuns.Min))
	fs.StringVar(&rf.runtime, "runtime", "", "record the runtime `NAME`'s own start-up ("+runtimeNames()+") as a layer agents' baselines extend, instead of -- CMD (after --, optionally the interpreter to use)")
	rf.ciOut.register(fs, true)
	if code, ok := c.parse(fs, args); !ok {
		return nil, nil, code, false
	}
	if rf.out == "" && len(rf.against) > 0 {
		rf.out = rf.against[0]
	}
	if code, ok := c.require(fs, "record", required{"-o BASELINE", rf.out != ""}, required{"-- CMD", fs.NArg() > 0 || rf.runtime != ""}); !ok {
		return nil, nil, code, false
	}
	if err := rf.policy().Check(); err != nil {
		return nil, nil, c.errorf(ExitUsage, "record: --runs/--max-runs: %v", err), false
	}
	if rf.runtime != "" && len(rf.against)+len(rf.extends) > 0 {
		return nil, nil, c.errorf(ExitUsage, "record: --runtime records a runtime's start alone: it extends nothing (leave out --against and --extends)"), false
	}
	if len(rf.against) > 0 && len(rf.extends) > 0 {
		return nil, nil, c.errorf(ExitUsage, "record: --against and --extends: an incremental record adds to files that exist, whose extends stay as they are"), false
	}
	for _, b := range rf.against {
		if _, err := baseline.ReadInput(b); err != nil {
			return nil, nil, c.errorf(ExitUsage, "--against %s: %v", b, unwrapPathError(err)), false
		}
	}
	if len(rf.against) > 0 {
		// What the run does not log is what these files allow: the new
		// entries are added to what -o holds, never replace it.
		rf.merge = true
		rf.agent = c.gateAgent(rf.agent, rf.against)
	} else if _, err := os.Stat(rf.out); err == nil {
		// A file that exists names its agent: a record into it is that
		// agent's, not the command's base name's (the layer hint's
		// command, run a second time, records into the agent's file).
		rf.agent = c.gateAgent(rf.agent, []string{rf.out})
	}
	if code, ok := c.resolveCIOutputs(&rf.ciOut); !ok {
		return nil, nil, code, false
	}
	return rf, fs, 0, true
}

func (c *Command) runRecord(args []string) int {
	rf, fs, code, ok := c.parseRecord(args)
	if !ok {
		return code
	}
	f, out := &rf.runFlags, rf.out
	pal, err := c.palette(f.color, c.Stderr) // record reports on stderr
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	opts, err := c.runOptions(f)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	outputs := []string{out, rf.obsPath, rf.ciOut.junit, rf.resultPath}
	if rf.runtime != "" {
		// A runtime layer's directory (baselines/runtimes/) is new on a
		// first seed; made before the run, as --observation's is.
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return c.errorf(ExitUsage, "-o %s: %v", out, err)
		}
	}
	if rf.obsPath != "" {
		// Made before the run, so the check below sees who can write it.
		if err := os.MkdirAll(filepath.Dir(rf.obsPath), 0o755); err != nil {
			return c.errorf(ExitUsage, "--observation %s: %v", rf.obsPath, err)
		}
	}
	if code, ok := c.checkOutputs(f, outputs...); !ok {
		return code
	}
	opts = append(opts, harness.WithMode(baseline.ModeRecord))
	opts = append(opts, rf.ciOut.readOnly(rf.resultPath)...)
	if len(rf.extends) > 0 {
		opts = append(opts, harness.WithBaselines(rf.extends...))
	}
	if len(rf.against) > 0 {
		opts = append(opts, harness.WithBaselines(rf.against...), harness.WithIncremental())
	}
	// The file is built from what it held before the run: the agent may
	// write to it (see harness.WithBaselineSnapshot).
	before := baseline.SnapshotStack(append(append([]string{out}, rf.extends...), rf.against...)...)
	opts = append(opts, harness.WithBaselineSnapshot(before))
	a := c.agent(f, fs.Args(), false)
	if rf.runtime != "" {
		if a, rf.header, err = c.runtimeAgent(f, rf.runtime, out, fs.Args()); err != nil {
			return c.errorf(ExitUsage, "record: %v", err)
		}
	}
	r, rec, code := c.recordRuns(rf, a, opts, before)
	if r == nil {
		return code
	}
	// CI reads these whatever the run's outcome: an inconclusive run is a
	// failed testcase, not a missing one. They are the last run's (with
	// every run's observation), or the one that stopped the recording.
	if code, ok := c.writeRunCIOutputs(f, &rf.ciOut, r); !ok {
		return code
	}
	if rf.resultPath != "" {
		if code, ok := c.checkOutputs(f, rf.resultPath); !ok {
			return code
		}
		if err := ci.WriteResultFile(rf.resultPath, r); err != nil {
			return c.errorf(ExitInconclusive, "write result: %v", err)
		}
	}
	if code, refused := c.refuseRecord(r, out, rec, pal); refused {
		return code
	}
	// The agent ran as another user: it may have planted links since.
	if code, ok := c.checkOutputs(f, outputs...); !ok {
		return code
	}
	return c.writeRecord(rf, r, rec, before, pal)
}

// recordRuns runs the agent as often as rf's policy says, merging the
// runs' observations into the last Result's. It stops at the first run
// whose result must not become a baseline (refuseRecord says why), or
// that changed a baseline; r nil: exit with code.
func (c *Command) recordRuns(rf *recordFlags, a harness.Agent, opts []harness.Option, before *baseline.Snapshot) (r *verdict.Result, rec *baseline.Stability, code int) {
	recording := baseline.NewRecording(rf.policy(), rf.out)
	for {
		r, code = c.runAgent(a, opts)
		if r == nil {
			return nil, nil, code
		}
		if _, refused := refusal(r); refused || len(r.ModifiedBaselines) > 0 || len(r.ChangedBaselines) > 0 {
			recording.Runs++
			return r, recording.Stability, ExitOK
		}
		again, err := recording.Add(r.Observed, rf.recordOptions(r, before))
		if err != nil {
			return nil, nil, c.errorf(ExitUsage, "%v", err)
		}
		r.Observed = recording.Merged
		r.Recording = verdict.RecordingOf(recording.Stability)
		if recording.Runs > 1 || again {
			ci.WriteRecordRun(c.Stderr, recording.Stability)
		}
		if !again {
			return r, recording.Stability, ExitOK
		}
	}
}

// recordOptions are how the flags write a run's observation to -o.
func (rf *recordFlags) recordOptions(r *verdict.Result, before *baseline.Snapshot) baseline.RecordOptions {
	return baseline.RecordOptions{Agent: r.Agent, Extends: rf.extends, Merge: rf.merge, Before: before, Select: r.Selector, Scheduling: rf.schedulingMode, Header: rf.header}
}

// refusal says why a run's result must not become a baseline: the exit
// code and the reason, refused false when it may.
func refusal(r *verdict.Result) (code int, refused bool) {
	switch {
	case !r.Conclusive():
		return ExitInconclusive, true
	case r.Verdict == verdict.VerdictAgentFailed:
		return ExitAgentFailed, true
	}
	for _, v := range r.ProgramViolations {
		if v.Mismatch != "" {
			return ExitViolation, true
		}
	}
	return 0, false
}

// refuseRecord says why a run's result must not become a baseline, if
// it must not: refused true, exit with code. rec says which run it was.
func (c *Command) refuseRecord(r *verdict.Result, out string, rec *baseline.Stability, pal ci.Palette) (code int, refused bool) {
	code, refused = refusal(r)
	if !refused {
		return 0, false
	}
	ci.WriteText(c.Stderr, r, pal)
	run := "the run"
	if rec.Runs > 1 || rec.Policy.Exact != 1 {
		run = fmt.Sprintf("run %d", rec.Runs)
	}
	switch code {
	case ExitInconclusive:
		return c.errorf(code, "not writing %s: %s was inconclusive: %s", out, run, r.Inconclusive), true
	case ExitAgentFailed:
		return c.errorf(code, "not writing %s: in %s the agent %s, so it may not have done what its baseline should hold "+
			"(--allow-agent-failure records it anyway)", out, run, ci.ExitText(r)), true
	}
	// An exec that ran another program than it named is how an agent
	// slips a program past the gate: no baseline learns it.
	for _, v := range r.ProgramViolations {
		if v.Mismatch != "" {
			return c.errorf(code, "not writing %s: %s", out, v.Mismatch), true
		}
	}
	return code, true
}

// writeRecord writes the observation and the baseline (or the layer this
// environment lacks) from a conclusive run, then reports.
func (c *Command) writeRecord(rf *recordFlags, r *verdict.Result, rec *baseline.Stability, before *baseline.Snapshot, pal ci.Palette) int {
	out := rf.out
	var err error
	if rf.obsPath != "" {
		if rf.merge {
			err = harness.MergeObservationFile(rf.obsPath, r.Observed)
		} else {
			err = baseline.WriteObservation(rf.obsPath, r.Observed)
		}
		if err != nil {
			return c.errorf(ExitInconclusive, "%v", err)
		}
	}
	// A layer the file picks for this environment that nobody recorded
	// yet is what this run records; the file itself serves the other
	// environments and stays as it is.
	written := out
	var res *baseline.RecordResult
	u, layered, err := c.unrecordedLayer(out, r.Selector, before)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	if layered {
		written = u.Path
		res, err = baseline.RecordLayer(u, r.Observed, baseline.RecordOptions{Select: r.Selector, Before: before, Provided: []string{out}})
	} else {
		res, err = baseline.WriteRecorded(out, r.Observed, rf.recordOptions(r, before))
	}
	if err != nil {
		if errors.Is(err, baseline.ErrInvalid) {
			return c.errorf(ExitUsage, "%v", err)
		}
		return c.errorf(ExitInconclusive, "%v", err)
	}
	// Everything is written before anything is printed: a reader that
	// stops reading (record ... | head -1) cannot cost the file.
	if err := ci.WriteText(c.Stderr, r, pal); err != nil {
		return c.errorf(ExitInconclusive, "write result: %v", err)
	}
	if err := ci.WriteRecorded(c.Stderr, written, res, pal); err != nil {
		return c.errorf(ExitInconclusive, "write result: %v", err)
	}
	if err := ci.WriteRecording(c.Stderr, rec, res); err != nil {
		return c.errorf(ExitInconclusive, "write result: %v", err)
	}
	if len(r.ModifiedBaselines) > 0 {
		// Written from the files as they were before the run, so nothing
		// the agent added is in it; the run itself still fails.
		return c.errorf(ExitViolation, "%s was written from its content before the run", out)
	}
	if len(r.ChangedBaselines) > 0 {
		// Another agent's baseline, most likely: this file holds nothing
		// of it, but the gate no longer checks what was reviewed.
		return c.errorf(ExitViolation, "the gate's baselines changed during the run: %s", strings.Join(r.ChangedBaselines, ", "))
	}
	return ExitOK
}

// unrecordedLayer returns the layer the file at out picks for the run's
// environment when nobody recorded it yet. Several missing layers are an
// error: what the run needed cannot be split between them.
func (c *Command) unrecordedLayer(out string, sel baseline.Selector, before *baseline.Snapshot) (baseline.UnrecordedLayer, bool, error) {
	if _, err := before.Read(out); err != nil {
		return baseline.UnrecordedLayer{}, false, nil // a new file: nothing picks a layer yet
	}
	p, err := baseline.LoadStackFor(sel, out)
	if err != nil {
		return baseline.UnrecordedLayer{}, false, nil // WriteRecorded says what is wrong with it
	}
	switch un := p.Unrecorded(); len(un) {
	case 0:
		return baseline.UnrecordedLayer{}, false, nil
	case 1:
		return un[0], true, nil
	default:
		return baseline.UnrecordedLayer{}, false, fmt.Errorf("record %s: %d layers are missing for this environment (%s and %s): record them one at a time, each with a command that exercises only its runtime",
			out, len(un), un[0].Path, un[1].Path)
	}
}
