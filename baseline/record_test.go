package baseline

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestWriteRecordedLeavesOutBasesAndValidates(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "runtimes/base.yaml", "version: 1\nsyscalls:\n  x86_64: [close, read]\n")
	path := filepath.Join(dir, "agents", "a.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	o := obs("a", 2, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 9, "close": 1, "write": 2, "mount": 1, "1000": 1, "openat(read)": 3}})
	// Extends are named as on a command line (here absolute); the file
	// records them relative to itself.
	res, err := WriteRecorded(path, o, RecordOptions{Extends: []string{filepath.Join(dir, "runtimes", "base.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := DefaultHeader + `

version: 1
agent: a
extends:
  - ../runtimes/base.yaml
syscalls:
  x86_64:
    - mount: "unreviewed: seen in record mode"
    - openat(read)
    - write
`
	if string(data) != want {
		t.Fatalf("recorded file:\n%s", data)
	}
	if len(res.Added) != 3 || res.Added[1].Syscall != "openat(read)" || res.Added[1].Line != 10 {
		t.Errorf("added: %+v", res.Added)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Syscall != "1000" {
		t.Errorf("skipped: %+v", res.Skipped)
	}
	// check takes the recorded file as is, and the run it came from is clean.
	p, err := Load(path)
	if err != nil {
		t.Fatalf("recorded file does not load: %v", err)
	}
	if r := Diff(p, o); len(r.New) != 1 || r.New[0].Syscall != "1000" {
		t.Errorf("recorded run is not clean against its own baseline: %+v", r.New)
	}
	if w := p.Warnings(); len(w) != 1 || w[0].Kind != KindUnreviewed {
		t.Errorf("placeholder reason should warn: %v", w)
	}
}

func TestWriteRecordedKeepsReasonsAndGroups(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.yaml", `# my own header

version: 1
agent: a
syscalls:
  x86_64:
    # reviewed in #3
    - connect: loopback only
    - getppid
    - mount: the sandbox mounts a tmpfs
groups:
  errors:
    reason: error paths
    syscalls:
      x86_64:
        - rt_sigreturn
`)
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"connect": 1, "mount": 1, "rt_sigreturn": 1, "read": 1}})

	// Without Merge, unseen getppid goes; reasons, comments, groups stay.
	doc, res, err := FromObservation(path, o, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := string(doc.Format())
	for _, keep := range []string{"# my own header\n", "    # reviewed in #3\n    - connect: loopback only\n", "    - mount: the sandbox mounts a tmpfs\n", "    - read\n", "  errors:\n    reason: error paths\n"} {
		if !strings.Contains(got, keep) {
			t.Errorf("lost %q:\n%s", keep, got)
		}
	}
	if strings.Contains(got, "getppid") || strings.Count(got, "rt_sigreturn") != 1 {
		t.Errorf("stale or duplicated entries:\n%s", got)
	}
	want := []Finding{{Arch: scmp.X86_64, Syscall: "getppid", File: path, Line: 9}}
	if !reflect.DeepEqual(res.Removed, want) {
		t.Errorf("removed %+v", res.Removed)
	}

	// With Merge, getppid stays.
	doc, res, err = FromObservation(path, o, RecordOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc.Format()), "    - getppid\n") || len(res.Removed) != 0 {
		t.Errorf("merge dropped getppid: %s %+v", doc.Format(), res.Removed)
	}
	if _, _, err := FromObservation(path, obs("b", 1, nil), RecordOptions{}); err == nil {
		t.Errorf("recorded agent b into agent a's file")
	}
}

func TestWriteRecordedDropsWhatABaseNowAllows(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nsyscalls:\n  x86_64: [read, rt_sigreturn, tgkill]\n")
	path := writeFile(t, dir, "a.yaml", `version: 1
agent: a
syscalls:
  x86_64:
    - read
    - write
groups:
  signals:
    reason: signal paths
    syscalls:
      x86_64:
        - rt_sigreturn
  errors:
    reason: error paths
    syscalls:
      x86_64:
        - exit
        - tgkill
`)
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1, "write": 1}})
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, filepath.Join(dir, "base.yaml")) // relative to the working directory
	if err != nil {
		t.Fatal(err)
	}
	res, err := WriteRecorded(path, o, RecordOptions{Extends: []string{rel}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatalf("written stack does not load: %v", err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "extends:\n  - base.yaml\n") {
		t.Errorf("extends not written relative to the file:\n%s", data)
	}
	if strings.Contains(string(data), "signals") || strings.Contains(string(data), "rt_sigreturn") || strings.Contains(string(data), "tgkill") || !strings.Contains(string(data), "        - exit\n") {
		t.Errorf("groups not pruned against the base:\n%s", data)
	}
	if len(res.Removed) != 3 { // read, rt_sigreturn, tgkill
		t.Errorf("removed %+v", res.Removed)
	}
}
