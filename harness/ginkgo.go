package harness

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// reportToGinkgo attaches the result to the running Ginkgo spec's report
// (JSON and JUnit reports carry it; ci renders them). Outside a spec, plain
// go test or the CLI, it does nothing.
func reportToGinkgo(r *Result) {
	if ginkgo.CurrentSpecReport().LeafNodeType == types.NodeTypeInvalid {
		return
	}
	ginkgo.AddReportEntry(ReportEntryName, r, ginkgo.ReportEntryVisibilityFailureOrVerbose)
}
