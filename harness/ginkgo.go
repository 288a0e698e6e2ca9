package harness

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// ReportEntryName is the name of the Ginkgo report entry holding a run's
// Result (its JSON form); ci reads results back from Ginkgo JSON reports by
// this name.
const ReportEntryName = "sysgate result"

// reportToGinkgo attaches the result to the running Ginkgo spec's report
// (JSON and JUnit reports carry it; ci renders them). Outside a spec, plain
// go test or the CLI, it does nothing.
func reportToGinkgo(r *Result) {
	if ginkgo.CurrentSpecReport().LeafNodeType == types.NodeTypeInvalid {
		return
	}
	ginkgo.AddReportEntry(ReportEntryName, r, ginkgo.ReportEntryVisibilityFailureOrVerbose)
}
