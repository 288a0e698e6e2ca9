package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

func TestMergeObservationFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "obs.json")
	for range 2 {
		o := baseline.NewObservation("fake")
		o.Runs = 1
		o.Add(scmp.X86_64, "read", 2)
		if err := MergeObservationFile(path, o); err != nil {
			t.Fatal(err)
		}
	}
	merged, err := baseline.ReadObservation(path)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Runs != 2 || merged.Count(scmp.X86_64, "read") != 4 {
		t.Errorf("merged %d runs, %d reads; want 2 and 4", merged.Runs, merged.Count(scmp.X86_64, "read"))
	}
	other := baseline.NewObservation("other")
	if err := MergeObservationFile(path, other); !errors.Is(err, baseline.ErrAgentMismatch) {
		t.Errorf("merge of another agent: %v; want ErrAgentMismatch", err)
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), "read"); n != 1 {
		t.Errorf("file mentions read %d times after the refused merge:\n%s", n, b)
	}
}

// TestMergeObservationFileMakesItsDirectory: spec record mode names a
// directory ($SYSGATE_OBSERVATIONS) that need not exist yet, and the
// merge leaves nothing in it but the observation (no lock file).
func TestMergeObservationFileMakesItsDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "obs-spec", "nested")
	path := filepath.Join(dir, "my-agent.json")
	o := baseline.NewObservation("my-agent")
	o.Runs = 1
	o.Add(scmp.X86_64, "read", 1)
	if err := MergeObservationFile(path, o); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "my-agent.json" {
		t.Errorf("the observation directory holds %q; want only my-agent.json", names)
	}
}
