package gate

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/harness"
)

func clean() *harness.Result { return &harness.Result{Verdict: harness.VerdictClean} }

func lost() *harness.Result {
	return &harness.Result{Verdict: harness.VerdictInconclusive, Inconclusive: "audit records lost",
		Loss: auditlog.Loss{KernelLost: 9}}
}

// script plays rs in order, one per attempt, counting the calls.
func script(calls *int, rs ...*harness.Result) func() (*harness.Result, string) {
	return func() (*harness.Result, string) {
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

	It("runs once when the first run is conclusive", func() {
		Expect(spec.attempt(script(&calls, clean()))).To(HaveField("Verdict", harness.VerdictClean))
		Expect(calls).To(Equal(1))
	})

	It("runs again from a fresh workspace after lost records", func() {
		Expect(spec.attempt(script(&calls, lost(), lost(), clean()))).To(HaveField("Verdict", harness.VerdictClean))
		Expect(calls).To(Equal(3))
	})

	It("resets what the agent changed before the next attempt", func() {
		first := true
		spec.attempt(func() (*harness.Result, string) {
			if first {
				first = false
				Expect(os.WriteFile(filepath.Join(spec.Dir, "notes.txt"), []byte("changed\n"), 0o644)).To(Succeed())
				Expect(os.WriteFile(filepath.Join(spec.Dir, "extra.txt"), nil, 0o644)).To(Succeed())
				return lost(), ""
			}
			Expect(filepath.Join(spec.Dir, "extra.txt")).NotTo(BeAnExistingFile())
			Expect(os.ReadFile(filepath.Join(spec.Dir, "notes.txt"))).To(HavePrefix("line one"))
			return clean(), ""
		})
	})

	It("gives up after Attempts inconclusive runs", func() {
		failures := InterceptGomegaFailures(func() {
			spec.attempt(script(&calls, lost(), lost(), lost(), clean()))
		})
		Expect(calls).To(Equal(Attempts))
		Expect(failures).To(ContainElement(ContainSubstring("inconclusive")))
	})

	It("does not repeat an inconclusive run that timed out", func() {
		timedOut := lost()
		timedOut.TimedOut = true
		failures := InterceptGomegaFailures(func() { spec.attempt(script(&calls, timedOut, clean())) })
		Expect(calls).To(Equal(1))
		Expect(failures).NotTo(BeEmpty())
	})
})
