package touch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
)

// rawRecord is one record as the stream delivered it.
type rawRecord struct {
	Type uint16
	Data string
}

// observed is what a privileged run of testdata/agent.py produced.
type observed struct {
	auid               uint32
	workspace, outside string
	records            []rawRecord
	events             []Event // as Observe delivered them
	stdout             string
}

// observeAgent runs python3 script args... under a fresh auid with rules
// installed, in a fresh workspace holding in.txt, and returns the raw
// records of its syscall events.
func observeAgent(t *testing.T, script string) observed {
	t.Helper()
	return observeAgentWith(t, script, func(string) {})
}

// observeAgentWith is observeAgent with setup called on the outside
// directory before the agent starts.
func observeAgentWith(t *testing.T, script string, setup func(outside string)) observed {
	t.Helper()
	testutil.RequireAudit(t)
	python := testutil.Python(t)
	auditctltest.HoldTuning(t)
	s, err := auditlog.Shared()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	o := observed{workspace: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{o.workspace, o.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(o.workspace, "in.txt"), []byte("in"), 0o644); err != nil {
		t.Fatal(err)
	}
	setup(o.outside)
	o.auid = NewAUID()
	in, err := Install(o.auid, Files|Network, Native)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := in.Remove(); err != nil {
			t.Error(err)
		}
	}()
	var mu sync.Mutex
	sub := s.SubscribeSyscallRecords(o.auid, func(typ uint16, data []byte) {
		mu.Lock()
		o.records = append(o.records, rawRecord{typ, string(data)})
		mu.Unlock()
	})
	obs := Observe(s, o.auid, func(ev Event) { o.events = append(o.events, ev) })
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	// The shell sets the login uid, as the launcher does, then becomes
	// the agent.
	cmd := exec.Command("sh", "-c", fmt.Sprintf("echo %d > /proc/self/loginuid && exec %s %s %s", o.auid, python, abs, o.outside))
	cmd.Dir = o.workspace
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent: %v\n%s", err, stderr.String())
	}
	o.stdout = string(out)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	loss, err := sub.Close(ctx)
	if err != nil || loss.Any() {
		t.Fatalf("subscription: %v, %s", err, loss)
	}
	if loss, err := obs.Close(ctx); err != nil || loss.Any() {
		t.Fatalf("observation: %v, %s", err, loss)
	}
	mu.Lock()
	defer mu.Unlock()
	return o
}
