package gatetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

// Run is harness.Run followed by ReportResult: for specs whose results
// belong in the suite's reports. The environment's options (EnvOptions:
// $SYSGATE_MODE, $SYSGATE_BACKEND, ... as the sysgate action sets them)
// come first, so the spec's own opts override them; a variable it cannot
// read is an error before anything runs. The files the agent used
// become inputs of Go's test cache (NoteAgentFiles).
func Run(ctx context.Context, agent harness.Agent, opts ...harness.Option) (*verdict.Result, error) {
	name := harness.AgentName(agent)
	env, err := EnvOptions(name, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("gatetest.Run %s: %w", agent.Name, err)
	}
	opts = append(env, opts...)
	var r *verdict.Result
	if m, _ := baseline.ParseMode(os.Getenv(EnvMode)); m == baseline.ModeRecord {
		policy, perr := RecordPolicy(os.Getenv)
		if perr != nil {
			return nil, fmt.Errorf("gatetest.Run %s: %w", agent.Name, perr)
		}
		dir, derr := observationDir(os.Getenv)
		if derr != nil {
			return nil, fmt.Errorf("gatetest.Run %s: %w", agent.Name, derr)
		}
		r, err = Record(ctx, agent, policy, observationFile(dir, name), opts...)
	} else {
		r, err = harness.Run(ctx, agent, opts...)
	}
	NoteAgentFiles(agent, r)
	ReportResult(r)
	return r, err
}

// ReportResult attaches r to the running Ginkgo spec's report under
// verdict.ReportEntryName (JSON and JUnit reports carry it; ci renders
// them), shown as its ci.Summary. Outside a spec (plain go test) and for
// a nil r it does nothing. Safe from any goroutine of the spec.
func ReportResult(r *verdict.Result) {
	if r == nil || ginkgo.CurrentSpecReport().LeafNodeType == types.NodeTypeInvalid {
		return
	}
	ginkgo.AddReportEntry(verdict.ReportEntryName, reportedResult{r}, ginkgo.ReportEntryVisibilityFailureOrVerbose)
}

// reportedResult is a Result as a report entry: Ginkgo shows its String,
// and its JSON is the Result's own, which ci reads back.
type reportedResult struct{ result *verdict.Result }

func (e reportedResult) String() string { return ci.Summary(e.result) }

func (e reportedResult) MarshalJSON() ([]byte, error) { return json.Marshal(e.result) }
