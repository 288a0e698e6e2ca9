//go:build linux && cgo

package compile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/scmp"
)

// TestRecordedFileAllowsItsRun: the check filter compiled from a recorded
// file allows every named syscall the recorded run made, through the file
// and its base (the file itself is checked in baseline's
// TestWriteRecordedLeavesOutBasesAndValidates).
func TestRecordedFileAllowsItsRun(t *testing.T) {
	if scmp.Native() != scmp.X86_64 {
		return
	}
	dir := t.TempDir()
	writeFile(t, dir, "runtimes/base.yaml", "version: 1\nsyscalls:\n  x86_64: [close, read]\n")
	path := filepath.Join(dir, "agents", "a.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	o := baseline.NewObservation("a")
	o.Runs = 2
	for name, n := range map[string]uint64{"read": 9, "close": 1, "write": 2, "mount": 1, "1000": 1, "openat(read)": 3} {
		o.Add(scmp.X86_64, name, n)
	}
	if _, err := baseline.WriteRecorded(path, o, baseline.RecordOptions{Extends: []string{filepath.Join(dir, "runtimes", "base.yaml")}}); err != nil {
		t.Fatal(err)
	}
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatalf("recorded file does not load: %v", err)
	}
	f, err := Compile(p, baseline.ModeCheck, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range o.Names(scmp.X86_64) {
		if name == "1000" {
			continue // unnamed: never in a baseline, stays a violation
		}
		if got := runFilterArgs(t, f, scmp.X86_64, number(t, scmp.X86_64, argclass.SyscallOf(name)), [6]uint64{}); got != retAllow {
			t.Errorf("recorded %s -> %#x in check mode, want ALLOW", name, got)
		}
	}
}
