package ci

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/sysgate/sysgate/verdict"
)

// spec is one Ginkgo spec of a fixture report: its text, whether it
// failed, and the result it attached (nil: none).
type spec struct {
	text     string
	failed   string // failure message; "" = passed
	result   *verdict.Result
	leafType types.NodeType
}

// writeGinkgoReport writes a Ginkgo JSON report ([]types.Report, as
// --json-report writes it) with the given specs, and returns its path.
func writeGinkgoReport(t *testing.T, suitePath string, specs ...spec) string {
	t.Helper()
	report := types.Report{SuitePath: suitePath, SuiteDescription: "fixture suite", SuiteSucceeded: true}
	for _, s := range specs {
		sr := types.SpecReport{LeafNodeText: s.text, LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed, RunTime: time.Second}
		if s.leafType != 0 {
			sr.LeafNodeType = s.leafType
		}
		if s.failed != "" {
			sr.State = types.SpecStateFailed
			sr.Failure = types.Failure{Message: s.failed, Location: types.CodeLocation{FileName: filepath.Join(suitePath, "agents_test.go"), LineNumber: 42}}
			report.SuiteSucceeded = false
		}
		if s.result != nil {
			sr.ReportEntries = append(sr.ReportEntries, types.ReportEntry{Name: verdict.ReportEntryName, Value: types.WrapEntryValue(s.result)})
		}
		report.SpecReports = append(report.SpecReports, sr)
	}
	data, err := json.Marshal([]types.Report{report})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
