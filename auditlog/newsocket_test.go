package auditlog

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog/barrier"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
)

// Issue 42: each `sysgate check` opens a new socket, and a tracker that
// counted from the first record the socket saw declared serials lost
// that had been sent before it joined (records are sent in queue order,
// not serial order). Here fresh streams open one after another while
// records of other threads flow, as they do beside other processes on a
// CI runner, and each opens and closes a subscription at once: no serial
// may be charged to it.
func TestFreshSocketsBesideOtherRecordsLoseNothing(t *testing.T) {
	testutil.RequireAudit(t)
	holdQuietKernel(t) // the noise floods: no other run beside it
	var stop atomic.Bool
	const noiseArg = 0x4e6f6973
	noisy := make(chan struct{}, 2)
	for range 2 {
		go func() {
			// A throwaway thread: its filter dies with it.
			runtime.LockOSThread()
			if kernel.OnMainThread() {
				noisy <- struct{}{}
				return
			}
			defer func() { noisy <- struct{}{} }()
			if kernel.SetNoNewPrivs() != nil || kernel.LoadSeccompFilter(barrier.LogOneSyscall(scmp.Native().AuditArch(), kernel.GetppidNr, true, noiseArg), 0) != nil {
				t.Error("the noise thread's filter")
				return
			}
			for !stop.Load() {
				_ = kernel.Getppid(noiseArg)
			}
		}()
	}
	defer func() {
		stop.Store(true)
		<-noisy
		<-noisy
	}()
	const opens = 60
	for i := range opens {
		s, err := Open(Options{})
		if err != nil {
			t.Fatal(err)
		}
		sub := s.Subscribe(0xfffffff0, func(*record.SeccompEvent) {})
		// Each open is a check of its own: it gets a run's barrier
		// deadline (harness.barrierTimeout), not a share of one budget
		// for all sixty (30 s ran out under a loaded race pass).
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		loss, err := sub.Close(ctx)
		cancel()
		s.Close()
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if loss.SerialGaps != 0 || loss.Malformed != 0 || loss.ENOBUFS != 0 {
			t.Errorf("open %d of %d: %v", i, opens, loss)
		}
	}
}
