package harness

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/internal/testutil"
)

// TestGinkgoSuite runs the harness inside a Ginkgo spec, as users' suites
// do: the result lands in the spec's report for ci to read back.
func TestGinkgoSuite(t *testing.T) {
	testutil.RequireAudit(t)
	RegisterFailHandler(Fail)
	RunSpecs(t, "harness in Ginkgo")
}

var _ = Describe("a run inside a spec", func() {
	It("attaches its Result to the spec report", func(ctx SpecContext) {
		var r *Result
		for range lossAttempts { // see lossAttempts
			var err error
			r, err = Run(ctx, Agent{Name: "true", Command: []string{"/bin/true"}})
			Expect(err).NotTo(HaveOccurred())
			if !r.Loss.Any() {
				break
			}
		}
		Expect(r).To(StayWithinBaseline())
		Expect(r).To(HaveObserved("execve"))
		Expect(r.Err()).To(Succeed())

		var entry *types.ReportEntry // the last one: the run asserted on
		for _, e := range CurrentSpecReport().ReportEntries {
			if e.Name == ReportEntryName {
				entry = &e
			}
		}
		Expect(entry).NotTo(BeNil(), "no %q report entry", ReportEntryName)
		// As ci reads it: through the JSON report.
		data, err := json.Marshal(entry)
		Expect(err).NotTo(HaveOccurred())
		var decoded types.ReportEntry
		Expect(json.Unmarshal(data, &decoded)).To(Succeed())
		var back Result
		Expect(json.Unmarshal([]byte(decoded.Value.AsJSON), &back)).To(Succeed())
		Expect(back.Agent).To(Equal("true"))
		Expect(back.Verdict).To(Equal(VerdictClean))
		Expect(back.Observed.Count(back.Arch, "execve")).To(BeEquivalentTo(1))
		Expect(entry.StringRepresentation()).To(ContainSubstring("true (record, /bin/true): clean"))
	})
})
