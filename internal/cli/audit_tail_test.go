package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog"
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

// tailUntilRecord runs `sysgate audit tail args... --count 1` and makes
// logged syscalls (barriers of a second stream: a sentinel thread logs
// getppid) until the tail has printed one and exited.
func tailUntilRecord(t *testing.T, args ...string) string {
	t.Helper()
	testutil.RequireAudit(t)
	other, err := auditlog.Open(auditlog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var out safeBuffer
	done := make(chan int, 1)
	go func() {
		done <- (&Command{Stdout: &out}).Main(append([]string{"sysgate", "audit", "tail", "--count", "1", "--duration", "20s"}, args...))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		select {
		case code := <-done:
			if code != ExitOK {
				t.Fatalf("audit tail exit %d: %s", code, out.String())
			}
			return out.String()
		default:
		}
		if err := other.Barrier(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAuditTailRawPrintsTestdataFormat(t *testing.T) {
	got := tailUntilRecord(t, "--raw")
	if !regexp.MustCompile(`^\d+ audit\(\d+\.\d{3}:\d+\): `).MatchString(got) || strings.Count(got, "\n") != 1 {
		t.Errorf("raw output %q is not one \"TYPE audit(...): ...\" line", got)
	}
}

func TestAuditTailJSONEvents(t *testing.T) {
	got := tailUntilRecord(t, "--format", "json")
	var ev auditlog.SeccompEvent
	if err := json.Unmarshal([]byte(got), &ev); err != nil {
		t.Fatalf("%q: %v", got, err)
	}
	if ev.Name != "getppid" || !strings.HasPrefix(ev.Comm, "sgb") || ev.Serial == 0 {
		t.Errorf("event %+v: want the other stream's sentinel (getppid from a sgb* thread)", ev)
	}
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
	b, err := os.ReadFile("/proc/self/sessionid")
	if err != nil {
		t.Fatal(err)
	}
	ses := strings.TrimSpace(string(b))
	got := tailUntilRecord(t, "--raw", "--ses", ses)
	if !strings.HasPrefix(got, "1326 audit(") || !strings.Contains(got, " ses="+ses+" ") || !strings.Contains(got, `comm="sgb`) {
		t.Errorf("raw output %q: want this process's sentinel record (ses=%s)", got, ses)
	}
}
