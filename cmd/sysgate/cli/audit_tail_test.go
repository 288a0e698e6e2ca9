package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
)

// safeBuffer is a bytes.Buffer the tail goroutine writes while the test
// reads.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// tailLines runs `sysgate audit tail args... --count 20` and makes logged
// syscalls (barriers of a second stream: a sentinel thread logs getppid)
// until the tail has printed 20 lines and exited. Other activity on the
// machine may be among them.
func tailLines(t *testing.T, count int, args ...string) []string {
	t.Helper()
	testutil.RequireAudit(t)
	auditctltest.HoldTuning(t)
	other, err := auditlog.Open(auditlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var out safeBuffer
	done := make(chan int, 1)
	go func() {
		done <- (&Command{Stdout: &out}).Main(append([]string{"sysgate", "audit", "tail", "--count", strconv.Itoa(count), "--duration", "20s"}, args...))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		select {
		case code := <-done:
			if code != ExitOK {
				t.Fatalf("audit tail exit %d: %s", code, out.String())
			}
			return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		default:
		}
		if err := other.Barrier(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAuditTailRawPrintsTestdataFormat(t *testing.T) {
	lines := tailLines(t, 20, "--raw")
	// An end-of-event record (1320) has no body: while anyone's syscall
	// rules are active (a files run of sysgate's own) they are on the
	// multicast group too.
	format := regexp.MustCompile(`^(\d+ audit\(\d+\.\d{3}:\d+\): \S|1320 audit\(\d+\.\d{3}:\d+\): ?$)`)
	for _, l := range lines {
		if !format.MatchString(l) {
			t.Errorf("raw line %q is not \"TYPE audit(...): ...\"", l)
		}
	}
	if len(lines) != 20 {
		t.Errorf("%d lines, want 20", len(lines))
	}
}

// isSentinel reports whether a JSON event line is a barrier sentinel's.
func isSentinel(ev record.SeccompEvent) bool {
	return ev.Name == "getppid" && strings.HasPrefix(ev.Comm, "sgb") && ev.PID == os.Getpid()
}

// On a busy machine other processes' events fill most lines (a parallel
// stress logs ~50 records for each sentinel here, and the stress's noise
// process shares this process's audit session): a window of
// sentinelWindow lines, tried a few times, makes missing every sentinel
// practically impossible while the lines still come from the kernel.
const (
	tailAttempts   = 5
	sentinelWindow = 500
)

func TestAuditTailJSONEvents(t *testing.T) {
	sentinels := 0
	for attempt := 0; attempt < tailAttempts && sentinels == 0; attempt++ {
		sentinels += countJSONSentinels(t, tailLines(t, sentinelWindow, "--format", "json"))
	}
	if sentinels == 0 {
		t.Errorf("none of the other stream's sentinels (getppid from this process's sgb* threads) was printed")
	}
}

func countJSONSentinels(t *testing.T, lines []string) int {
	t.Helper()
	sentinels := 0
	for _, l := range lines {
		var ev record.SeccompEvent
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if ev.Serial == 0 || ev.Name == "" {
			t.Errorf("incomplete event %+v", ev)
		}
		if isSentinel(ev) {
			sentinels++
		}
	}
	return sentinels
}

func TestAuditTailRejectsBadSession(t *testing.T) {
	var errOut bytes.Buffer
	code := (&Command{Stderr: &errOut}).Main([]string{"sysgate", "audit", "tail", "--ses", "x"})
	if code != ExitUsage || !strings.Contains(errOut.String(), "--ses") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

func TestAuditTailRawSessionFilter(t *testing.T) {
	// The other stream's sentinel thread belongs to this process, so its
	// record carries this process's audit session.
	id, err := kernel.ReadSession(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ses := strconv.FormatUint(uint64(id), 10)
	sentinels := 0
	for attempt := 0; attempt < tailAttempts && sentinels == 0; attempt++ {
		for _, l := range tailLines(t, sentinelWindow, "--raw", "--ses", ses) {
			if !strings.HasPrefix(l, "1326 audit(") || !strings.Contains(l, " ses="+ses+" ") {
				t.Errorf("raw line %q is not a seccomp record of session %s", l, ses)
			}
			if strings.Contains(l, " pid="+strconv.Itoa(os.Getpid())+" ") && strings.Contains(l, ` comm="sgb`) {
				sentinels++
			}
		}
	}
	if sentinels == 0 {
		t.Errorf("no sentinel record of this process among the lines")
	}
}
