package main

import (
	"context"
	"testing"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/testutil"
)

// Go benchmarks of the per-run fixed costs (go -C tools test -bench . ./bench);
// the side-by-side table is the program (make bench).

func BenchmarkHarnessRunTrueRecord(b *testing.B) {
	testutil.RequireAudit(b)
	for b.Loop() {
		r, err := harness.Run(context.Background(), harness.Agent{Command: []string{"/bin/true"}}, harness.WithMode(baseline.ModeRecord))
		if err != nil {
			b.Fatal(err)
		}
		if !r.Conclusive() {
			b.Fatal(r.Inconclusive)
		}
	}
}

func BenchmarkBarrier(b *testing.B) {
	testutil.RequireAudit(b)
	s, err := auditlog.Shared()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.Barrier(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
