package harness

import (
	"errors"
	"strings"
	"testing"
)

// A new line in Inconclusive separates sysgate's reasons only: one the
// agent put in a name it chose is escaped within its reason.
func TestJoinReasonsEscapesOnlyWithinAReason(t *testing.T) {
	got := joinReasons([]error{errors.New("lost 3 events"), errors.New("1 exec ran a program sysgate could not name (/tmp/x\ny)")})
	if parts := strings.Split(got, "\n"); len(parts) != 2 || parts[1] != `1 exec ran a program sysgate could not name (/tmp/x\x0ay)` {
		t.Errorf("joinReasons = %q; want two parts, the agent's new line escaped", got)
	}
}
