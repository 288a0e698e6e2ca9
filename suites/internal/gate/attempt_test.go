package gate

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/verdict"
)

func clean() *verdict.Result { return &verdict.Result{Verdict: verdict.VerdictClean} }

func lost() *verdict.Result {
	return &verdict.Result{Verdict: verdict.VerdictInconclusive, Inconclusive: "audit records lost",
		Loss: auditlog.Loss{KernelLost: 9}}
}

// script plays rs in order, one per attempt, counting the calls.
func script(calls *int, rs ...*verdict.Result) func() (*verdict.Result, string) {
	return func() (*verdict.Result, string) {
		*calls++
		return rs[*calls-1], "output"
	}
}

var _ = Describe("attempt", func() {
	var (
		spec  Spec
		calls int
	)

	BeforeEach(func() {
		spec = Spec{Baseline: "test/agent", Dir: NewWorkspace()}
		calls = 0
	})

	It("runs once when the run is conclusive", func() {
		Expect(spec.attempt(script(&calls, clean()))).To(HaveField("Verdict", verdict.VerdictClean))
		Expect(calls).To(Equal(1))
	})

	// A user's CI repeats nothing: a run that lost records fails the spec
	// (issue 42), it is not run again.
	It("fails at once on a run that lost records", func() {
		failures := InterceptGomegaFailures(func() {
			spec.attempt(script(&calls, lost(), clean()))
		})
		Expect(calls).To(Equal(1))
		Expect(failures).To(ContainElement(ContainSubstring("inconclusive")))
	})
})
