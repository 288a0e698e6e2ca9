package harness

import (
	"sync"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// Runs claim and reap sessions concurrently (parallel Ginkgo workers, go
// test packages): a reaper must never see a claim half-written.
func TestClaimsAndReapsRaceFree(t *testing.T) {
	testutil.RequireRoot(t)
	const workers, rounds = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				// Session ids far above any the kernel hands out here.
				release, err := claimSession(uint32(4_000_000_000 + w*rounds + i))
				if err != nil {
					errs <- err
					continue
				}
				if err := reapAbandonedRuns(); err != nil {
					errs <- err
				}
				release()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
