// Package stress_test runs many gated agents at once, on several Ginkgo
// processes, next to an unrelated process whose syscalls are logged too,
// and proves each run sees exactly its own events: nothing attributed to
// the wrong run, nothing lost, no 60 s backlog stall.
//
// `go test` runs the small version (label stress-small: 4 concurrent runs
// in each of 2 specs); scripts/stress.sh (make stress, make bench) runs the
// Stress specs on 8 Ginkgo processes, 5 times.
package stress_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/suites/internal/deadline"
)

// Labels of the stress suite.
var (
	RequiresAudit = Label("requires-audit")
	// Stress: the full load (make stress); left out of a plain go test.
	Stress = Label("stress")
	// StressSmall: the quick version that runs in make test.
	StressSmall = Label("stress-small")
)

func TestStress(t *testing.T) {
	RegisterFailHandler(Fail)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	if suiteConfig.LabelFilter == "" {
		suiteConfig.LabelFilter = "!stress"
	}
	// A spec's runs are concurrent, each bounded by stallTimeout.
	defer deadline.Default(deadline.Ordinary)()
	RunSpecs(t, "sysgate parallel stress", suiteConfig, reporterConfig)
}

// shared is set up once by Ginkgo process 1.
type shared struct {
	Agent    string // suites/faults/testdata/agent.c, static
	Baseline string // everything `agent loop benign` does
}

var env shared

var _ = SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
	testutil.RequireAudit(GinkgoT())
	dir, err := os.MkdirTemp("", "sysgate-stress")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	s := shared{Agent: filepath.Join(dir, "agent"), Baseline: filepath.Join(dir, "loop.yaml")}
	out, err := exec.Command("gcc", "-static", "-O1", "-pthread", "-o", s.Agent, filepath.Join(suitesDir(), "faults", "testdata", "agent.c")).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc: %s", out)

	// The suite's baseline, recorded once.
	r, err := gatetest.Run(ctx, harness.Agent{Name: "loop", Command: []string{s.Agent, "loop", "benign"}}, harness.WithMode(baseline.ModeRecord))
	Expect(err).NotTo(HaveOccurred())
	Expect(r.Conclusive()).To(BeTrue(), r.Inconclusive)
	_, err = baseline.WriteRecorded(s.Baseline, r.Observed, baseline.RecordOptions{Agent: "loop"})
	Expect(err).NotTo(HaveOccurred())

	// The unrelated noise: a process outside every run whose syscalls are
	// all logged, for the whole suite.
	perMs := "20"
	if os.Getenv("SYSGATE_STRESS_NOISE") != "" {
		perMs = os.Getenv("SYSGATE_STRESS_NOISE")
	}
	noise := exec.Command(s.Agent, "noise", "x", perMs)
	Expect(noise.Start()).To(Succeed())
	DeferCleanup(func() {
		_ = noise.Process.Signal(syscall.SIGKILL)
		_ = noise.Wait()
	})
	data, err := json.Marshal(s)
	Expect(err).NotTo(HaveOccurred())
	return data
}, func(data []byte) {
	Expect(json.Unmarshal(data, &env)).To(Succeed())
})

func suitesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}
