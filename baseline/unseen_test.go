package baseline

import (
	"testing"

	"github.com/sysgate/sysgate/baseline/risk"
)

func TestChannelsAreRisky(t *testing.T) {
	for _, c := range Channels {
		// openat2 is refused because the filter cannot class it, not
		// for a risk of its own (its unmonitored entry needs a reason).
		if c.Syscall != "openat2" && !risk.Of(c.Syscall).Risky() {
			t.Errorf("channel %s is not risky", c.Syscall)
		}
	}
}
