package gatetest

import (
	"encoding/json"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// TestGinkgoSuite runs the harness inside Ginkgo specs, as users' suites
// do: through Run, the result lands in the spec's report for ci to read
// back; through harness.Run, nowhere.
func TestGinkgoSuite(t *testing.T) {
	testutil.RequireAudit(t)
	RegisterFailHandler(Fail)
	RunSpecs(t, "harness in Ginkgo")
}

// runTrue runs /bin/true through run, once.
func runTrue(ctx SpecContext, run func(SpecContext, harness.Agent) (*verdict.Result, error)) *verdict.Result {
	GinkgoHelper()
	r, err := run(ctx, harness.Agent{Name: "true", Command: []string{"/bin/true"}})
	Expect(err).NotTo(HaveOccurred())
	return r
}

// resultEntries returns the running spec's report entries that hold a Result.
func resultEntries() []types.ReportEntry {
	var out []types.ReportEntry
	for _, e := range CurrentSpecReport().ReportEntries {
		if e.Name == verdict.ReportEntryName {
			out = append(out, e)
		}
	}
	return out
}

var _ = Describe("a run inside a spec", func() {
	It("attaches its Result to the spec report through Run", SpecTimeout(time.Minute), func(ctx SpecContext) {
		r := runTrue(ctx, func(ctx SpecContext, a harness.Agent) (*verdict.Result, error) { return Run(ctx, a) })
		Expect(r).To(StayWithinBaseline())
		Expect(r).To(HaveObserved("execve"))
		Expect(Err(r)).To(Succeed())

		entries := resultEntries()
		Expect(entries).NotTo(BeEmpty(), "no %q report entry", verdict.ReportEntryName)
		entry := entries[len(entries)-1] // the run asserted on
		// As ci reads it: through the JSON report.
		data, err := json.Marshal(entry)
		Expect(err).NotTo(HaveOccurred())
		var decoded types.ReportEntry
		Expect(json.Unmarshal(data, &decoded)).To(Succeed())
		var back verdict.Result
		Expect(json.Unmarshal([]byte(decoded.Value.AsJSON), &back)).To(Succeed())
		Expect(back.Agent).To(Equal("true"))
		Expect(back.Verdict).To(Equal(verdict.VerdictClean))
		Expect(back.Observed.Count(back.Arch, "execve")).To(BeEquivalentTo(1))
		Expect(entry.StringRepresentation()).To(ContainSubstring("true (record, /bin/true): clean"))
	})

	It("reports nothing through harness.Run alone", SpecTimeout(time.Minute), func(ctx SpecContext) {
		r := runTrue(ctx, func(ctx SpecContext, a harness.Agent) (*verdict.Result, error) { return harness.Run(ctx, a) })
		Expect(r).To(StayWithinBaseline())
		Expect(resultEntries()).To(BeEmpty())
	})
})
