package gatetest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// The variables a CI step sets to steer specs it did not write: the sysgate
// GitHub Action (action.yml) sets them for the Go packages it runs, and a
// user may set them by hand (SYSGATE_MODE=record go test ./...). Run reads
// them before the spec's own options, so an option the spec passes wins.
const (
	// EnvMode is record, check or enforce (empty: the spec's own mode,
	// check by default).
	EnvMode = "SYSGATE_MODE"
	// EnvObservations is the directory record mode merges each agent's
	// observation into, as <agent>.json (required with EnvMode=record).
	// A relative path here, in EnvBaselines and in EnvReadOnly is taken
	// from the root of the Go module under test (the directory of its
	// go.mod), not from the package directory go test runs the spec in.
	EnvObservations = "SYSGATE_OBSERVATIONS"
	// EnvBackend is auto, audit or notify, as the CLI's --backend.
	EnvBackend = "SYSGATE_BACKEND"
	// EnvUser is uid:gid (or uid) the agents run as: the action sets it to
	// the runner's user when it runs the specs through sudo.
	EnvUser = "SYSGATE_USER"
	// EnvIncremental "1" makes record mode incremental (WithIncremental):
	// the spec's baselines allowed in the kernel, only the rest logged.
	EnvIncremental = "SYSGATE_INCREMENTAL"
	// EnvBaselines names the gate's baselines, files or directories
	// separated by white space (the action's baselines input): every run
	// binds them read-only, and a run fails once one changed since the
	// process's first run with that value (harness.BaselineGuard).
	EnvBaselines = "SYSGATE_BASELINES"
	// EnvReadOnly names more paths, one a line, bound read-only for every
	// agent (WithReadOnly): the action sets it to the runner's paths an
	// agent must not write (its own checkout, the tool cache, _actions,
	// the file-command directory, the reports).
	EnvReadOnly = "SYSGATE_READ_ONLY"
	// EnvRecordRuns is how often Run runs an agent it records for
	// $SYSGATE_OBSERVATIONS: a number is exactly that many runs (1: one
	// run); empty: until stable (RecordPolicy).
	EnvRecordRuns = "SYSGATE_RECORD_RUNS"
	// EnvRecordMaxRuns bounds a recording that runs until stable
	// (default baseline.DefaultRecordRuns.Max).
	EnvRecordMaxRuns = "SYSGATE_RECORD_MAX_RUNS"
)

// RecordPolicy is how often the environment asks Run to run an agent it
// records: $SYSGATE_RECORD_RUNS runs exactly, else until 2 runs in a row
// add nothing to the baseline (at least 3, at most
// $SYSGATE_RECORD_MAX_RUNS, default 10), as sysgate record does.
func RecordPolicy(getenv func(string) string) (baseline.RecordRuns, error) {
	p := baseline.DefaultRecordRuns
	if v := getenv(EnvRecordRuns); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, fmt.Errorf("$%s=%q: want a number of runs, at least 1", EnvRecordRuns, v)
		}
		return baseline.ExactRuns(n), nil
	}
	if v := getenv(EnvRecordMaxRuns); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, fmt.Errorf("$%s=%q: want a number of runs, at least 1", EnvRecordMaxRuns, v)
		}
		p.Max, p.Min = n, min(p.Min, n)
	}
	return p, nil
}

// guards holds one BaselineGuard per EnvBaselines value for the process
// (a Ginkgo process runs one suite, or a part of it): made at the first
// run that asks for it, so its hashes are from before that run, and kept,
// so a file changed by any later run fails every run after it.
var guards = struct {
	sync.Mutex
	byValue map[string]*harness.BaselineGuard
}{byValue: map[string]*harness.BaselineGuard{}}

// Guard returns the process's BaselineGuard on paths (white-space
// separated), made at its first call with that value.
func Guard(paths string) (*harness.BaselineGuard, error) {
	key := strings.Join(strings.Fields(paths), " ")
	if key == "" {
		return nil, nil
	}
	guards.Lock()
	defer guards.Unlock()
	if g, ok := guards.byValue[key]; ok {
		return g, nil
	}
	g, err := harness.NewBaselineGuard(strings.Fields(key)...)
	if err != nil {
		return nil, err
	}
	guards.byValue[key] = g
	return g, nil
}

// Incremental reports whether getenv asks for an incremental record
// (EnvIncremental is 1 or true); any other value but empty or 0 is an
// error, so a typo never turns an incremental update into a pruning one.
func Incremental(getenv func(string) string) (bool, error) {
	switch v := getenv(EnvIncremental); v {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	default:
		return false, fmt.Errorf("$%s=%q: want 1 or 0", EnvIncremental, v)
	}
}

// EnvOptions are the harness options the environment asks for (read
// through getenv, os.Getenv at the edge), for an agent named agentName.
// A value it cannot read is an error naming the variable: a spec must not
// quietly check when it was asked to record.
func EnvOptions(agentName string, getenv func(string) string) ([]harness.Option, error) {
	var opts []harness.Option
	if v := getenv(EnvBackend); v != "" {
		b, err := verdict.ParseBackend(v)
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", EnvBackend, err)
		}
		opts = append(opts, harness.WithBackend(b))
	}
	if v := getenv(EnvMode); v != "" {
		m, err := baseline.ParseMode(v)
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", EnvMode, err)
		}
		opts = append(opts, harness.WithMode(m))
		if m == baseline.ModeRecord {
			dir, err := observationDir(getenv)
			if err != nil {
				return nil, fmt.Errorf("$%s: %w", EnvObservations, err)
			}
			if dir == "" {
				return nil, fmt.Errorf("$%s=record needs $%s, the directory the observations are merged into", EnvMode, EnvObservations)
			}
			if agentName == "" || strings.ContainsAny(agentName, "/\x00") || agentName == "." || agentName == ".." {
				return nil, fmt.Errorf("$%s=record: the agent's name %q cannot name a file in $%s: give the agent a Name", EnvMode, agentName, EnvObservations)
			}
			opts = append(opts, harness.WithObservationFile(observationFile(dir, agentName)))
			inc, err := Incremental(getenv)
			if err != nil {
				return nil, err
			}
			if inc {
				opts = append(opts, harness.WithIncremental())
			}
		}
	}
	if v := getenv(EnvBaselines); strings.TrimSpace(v) != "" {
		var abs []string
		for _, p := range strings.Fields(v) {
			a, err := fromModule(p)
			if err != nil {
				return nil, fmt.Errorf("$%s: %w", EnvBaselines, err)
			}
			abs = append(abs, a)
		}
		g, err := Guard(strings.Join(abs, " "))
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", EnvBaselines, err)
		}
		opts = append(opts, harness.WithBaselineGuard(g))
	}
	if v := getenv(EnvReadOnly); v != "" {
		var paths []string
		for _, p := range strings.Split(v, "\n") {
			if p == "" {
				continue
			}
			a, err := fromModule(p)
			if err != nil {
				return nil, fmt.Errorf("$%s: %w", EnvReadOnly, err)
			}
			paths = append(paths, a)
		}
		opts = append(opts, harness.WithReadOnly(paths...))
	}
	if v := getenv(EnvUser); v != "" {
		uid, gid, err := parseIDs(v)
		if err != nil {
			return nil, fmt.Errorf("$%s=%q: %w", EnvUser, v, err)
		}
		opts = append(opts, harness.WithUser(uid, gid))
	}
	return opts, nil
}

// observationFile is where record mode merges agentName's observation.
func observationFile(dir, agentName string) string { return filepath.Join(dir, agentName+".json") }

// parseIDs reads "uid:gid" or "uid" (gid = uid).
func parseIDs(s string) (uid, gid uint32, err error) {
	us, gs, hasGid := strings.Cut(s, ":")
	if !hasGid {
		gs = us
	}
	u, err := strconv.ParseUint(us, 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("want numeric uid[:gid]")
	}
	g, err := strconv.ParseUint(gs, 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("want numeric uid[:gid]")
	}
	return uint32(u), uint32(g), nil
}
