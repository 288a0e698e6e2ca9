package ci

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// testdata/ginkgo-report.json was written by `ginkgo --json-report`
// (v2.34) for a small suite: specs that attach a verdict.Result (clean, a
// passing bite, a failing violation), a spec that fails without one, a
// skipped spec and a failing AfterSuite. Paths were then rewritten to
// /repo/suites/fixture.
const realGinkgoReport = "testdata/ginkgo-report.json"

// TestGinkgoDecoderMatchesGinkgo decodes the real report with Ginkgo's own
// types and with ci's local structs: every field ci reads agrees.
func TestGinkgoDecoderMatchesGinkgo(t *testing.T) {
	data, err := os.ReadFile(realGinkgoReport)
	if err != nil {
		t.Fatal(err)
	}
	var theirs []types.Report
	var ours []ginkgoReport
	if err := json.Unmarshal(data, &theirs); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &ours); err != nil {
		t.Fatal(err)
	}
	if len(theirs) != 1 || len(ours) != 1 || ours[0].SuitePath != theirs[0].SuitePath || len(ours[0].SpecReports) != len(theirs[0].SpecReports) {
		t.Fatalf("suites: ours %+v", ours)
	}
	entries := 0
	for i, want := range theirs[0].SpecReports {
		got := &ours[0].SpecReports[i]
		if got.fullText() != want.FullText() || got.LeafNodeType != want.LeafNodeType.String() || got.State != want.State.String() ||
			got.failed() != want.State.Is(types.SpecStateFailureStates) || (got.LeafNodeType == ginkgoNodeIt) != (want.LeafNodeType == types.NodeTypeIt) {
			t.Errorf("spec %d: ours %q %s %s failed=%v, Ginkgo's %q %s %s", i, got.fullText(), got.LeafNodeType, got.State, got.failed(),
				want.FullText(), want.LeafNodeType, want.State)
		}
		if got.Failure.Message != want.Failure.Message || got.Failure.Location.FileName != want.Failure.Location.FileName ||
			got.Failure.Location.LineNumber != want.Failure.Location.LineNumber {
			t.Errorf("spec %d failure: ours %+v, Ginkgo's %+v", i, got.Failure, want.Failure)
		}
		if len(got.ReportEntries) != len(want.ReportEntries) {
			t.Fatalf("spec %d: %d report entries, Ginkgo %d", i, len(got.ReportEntries), len(want.ReportEntries))
		}
		for j, e := range want.ReportEntries {
			if got.ReportEntries[j].Name != e.Name || got.ReportEntries[j].Value.AsJSON != e.Value.AsJSON {
				t.Errorf("spec %d entry %d: ours %+v", i, j, got.ReportEntries[j])
			}
			entries++
		}
	}
	if entries != 3 {
		t.Errorf("%d report entries, want the fixture's 3", entries)
	}
}

// TestLoadRealGinkgoReport renders the real report: three runs (one a
// bite), two failures without a result (a spec, the AfterSuite).
func TestLoadRealGinkgoReport(t *testing.T) {
	r, err := Load(LoadOptions{Root: fixtureRoot}, realGinkgoReport)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Runs) != 3 || len(r.Failures) != 2 || r.Verdict() != VerdictViolation {
		t.Fatalf("%d runs, %d failures, verdict %s", len(r.Runs), len(r.Failures), r.Verdict())
	}
	var ann, sum bytes.Buffer
	if err := r.WriteAnnotations(&ann); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	golden(t, "ginkgo-report.annotations", ann.Bytes())
	golden(t, "ginkgo-report.summary.md", sum.Bytes())
}
