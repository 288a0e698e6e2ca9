package stress_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/ci/gatetest"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// stallTimeout ends a run that hangs: the kernel's backlog stall froze a
// logging process for exactly 60 s, so a run this long is that fault.
const stallTimeout = 50 * time.Second

// tally is what one spec saw over its concurrent runs.
type tally struct {
	Runs, Events, Misattributed, Lost, Stalls int
	SilentLoss                                int // fewer events than calls in a conclusive result: fail-open
	MaxMillis                                 int64
}

// runConcurrently starts n runs at once, each making its own number of
// logged getppid calls, and checks each result holds exactly that run's
// calls from exactly its one process.
func runConcurrently(ctx SpecContext, spec, n, calls int) tally {
	GinkgoHelper()
	type outcome struct {
		want int
		r    *verdict.Result
		err  error
		took time.Duration
	}
	outs := make([]outcome, n)
	var wg sync.WaitGroup
	for i := range outs {
		// Distinct counts per run, process and spec: a foreign event
		// shows up as a wrong count.
		want := calls + GinkgoParallelProcess()*100 + spec*10 + i
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer GinkgoRecover()
			start := time.Now()
			r, err := gatetest.Run(ctx, harness.Agent{Name: "loop", Command: []string{env.Agent, "loop", "escape", strconv.Itoa(want)}},
				harness.WithBaselines(env.Baseline), harness.WithTimeout(stallTimeout))
			outs[i] = outcome{want, r, err, time.Since(start)}
		}()
	}
	wg.Wait()
	var t tally
	for _, o := range outs {
		Expect(o.err).NotTo(HaveOccurred())
		r := o.r
		t.Runs++
		t.Events += int(r.Events)
		t.MaxMillis = max(t.MaxMillis, o.took.Milliseconds())
		if r.TimedOut {
			t.Stalls++
		}
		if r.Loss.Any() {
			t.Lost++
			GinkgoWriter.Printf("run wanted %d getppid: %s\n", o.want, r.Loss)
		}
		got := r.Observed.Count(scmp.Native(), "getppid")
		switch {
		case got > uint64(o.want) || len(r.Processes) != 1 || len(r.Observed.Names(scmp.Native())) != 1:
			t.Misattributed++
			GinkgoWriter.Printf("run wanted %d getppid, got %d; processes %v; observed %v\n", o.want, got, r.Processes, r.Observed.Names(scmp.Native()))
		case got < uint64(o.want) && r.Conclusive():
			// Fewer events than calls, yet a verdict: loss nobody noticed.
			t.SilentLoss++
			GinkgoWriter.Printf("run wanted %d getppid, got %d, and called the result conclusive\n", o.want, got)
		}
	}
	record(t)
	Expect(t.Stalls).To(BeZero(), "runs hit the %v stall timeout", stallTimeout)
	Expect(t.SilentLoss).To(BeZero(), "runs missed events without noticing (fail-open)")
	Expect(t.Lost).To(BeZero(), "runs lost audit records")
	Expect(t.Misattributed).To(BeZero(), "runs saw events that were not their own, or missed their own")
	for _, o := range outs {
		Expect(o.r.Verdict).To(Equal(verdict.VerdictViolation), ci.Summary(o.r))
	}
	return t
}

// record appends the tally to $SYSGATE_STRESS_LOG (one JSON line per
// spec; scripts/stress.sh totals them) and to the spec report.
func record(t tally) {
	AddReportEntry("stress tally", fmt.Sprintf("%+v", t), ReportEntryVisibilityFailureOrVerbose)
	path := os.Getenv("SYSGATE_STRESS_LOG")
	if path == "" {
		return
	}
	line, _ := json.Marshal(t)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	Expect(err).NotTo(HaveOccurred())
}

var _ = Describe("concurrent gated runs next to logged noise", RequiresAudit, func() {
	for spec := range 2 {
		It(fmt.Sprintf("keeps 4 concurrent runs apart (small %d)", spec), StressSmall, func(ctx SpecContext) {
			runConcurrently(ctx, spec, 4, 2000)
		})
	}
	// 8 specs, so each of 8 Ginkgo processes runs one at the same time.
	for spec := range 8 {
		It(fmt.Sprintf("keeps 6 concurrent runs apart (load %d)", spec), Stress, func(ctx SpecContext) {
			runConcurrently(ctx, spec, 6, stressCalls())
		})
	}
})

// stressCalls is the logged calls per run of the Stress specs
// (SYSGATE_STRESS_CALLS, default 2000).
func stressCalls() int {
	if n, err := strconv.Atoi(os.Getenv("SYSGATE_STRESS_CALLS")); err == nil && n > 0 {
		return n
	}
	return 2000
}
