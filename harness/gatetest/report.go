package gatetest

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/sysgate/sysgate/harness"
)

// Run is harness.Run followed by ReportResult: for specs whose results
// belong in the suite's reports.
func Run(ctx context.Context, agent harness.Agent, opts ...harness.Option) (*harness.Result, error) {
	r, err := harness.Run(ctx, agent, opts...)
	ReportResult(r)
	return r, err
}

// ReportResult attaches r to the running Ginkgo spec's report under
// harness.ReportEntryName (JSON and JUnit reports carry it; ci renders
// them). Outside a spec (plain go test) and for a nil r it does nothing.
// Safe from any goroutine of the spec.
func ReportResult(r *harness.Result) {
	if r == nil || ginkgo.CurrentSpecReport().LeafNodeType == types.NodeTypeInvalid {
		return
	}
	ginkgo.AddReportEntry(harness.ReportEntryName, r, ginkgo.ReportEntryVisibilityFailureOrVerbose)
}
