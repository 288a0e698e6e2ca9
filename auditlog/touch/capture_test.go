package touch

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var capture = flag.Bool("capture", false, "write testdata/agent.log from a privileged run of testdata/agent.py")

// TestCaptureRecords regenerates testdata/agent.log: the raw records of
// testdata/agent.py's calls on this machine, with the paths of the run's
// temporary directory replaced by @ROOT@ so the pure tests can place them.
func TestCaptureRecords(t *testing.T) {
	if !*capture {
		t.Skip("run with -capture to regenerate testdata/agent.log")
	}
	o := observeAgent(t, "testdata/agent.py")
	root := strings.TrimSuffix(o.workspace, "/ws")
	// Keep the events that touch the run's directories, and every call
	// but the interpreter's hundreds of library opens.
	keep := map[string]bool{}
	for _, r := range o.records {
		serial := serialOf(r.Data)
		if r.Type == 1300 && !strings.Contains(r.Data, " syscall=257 ") ||
			r.Type == 1302 && (strings.Contains(r.Data, root) || strings.Contains(r.Data, "/proc/self/fd/") || !strings.Contains(r.Data, `name="/`)) ||
			r.Type == 1306 {
			keep[serial] = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# auid=%d root=%s\n", o.auid, root)
	n := 0
	for _, r := range o.records {
		if keep[serialOf(r.Data)] {
			fmt.Fprintf(&b, "%d %s\n", r.Type, r.Data)
			n++
		}
	}
	if err := os.WriteFile("testdata/agent.log", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records, %d kept", len(o.records), n)
}

func serialOf(data string) string {
	_, rest, _ := strings.Cut(data, ":")
	serial, _, _ := strings.Cut(rest, ")")
	return serial
}
