package baseline

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

func TestDiffPrograms(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nprograms:\n  - path: /opt/*/bin/tool\n    reason: one per version\n  - /usr/bin/unused-in-base\n")
	agent := writeFile(t, dir, "a.yaml", `version: 1
agent: a
extends: [base.yaml]
programs:
  - /usr/bin/git
  # the interpreter
  - /usr/bin/python3.13
  - path: /usr/bin/sh
    reason: runs the hooks
syscalls:
  x86_64: [read]
`)
	p, err := Load(agent)
	if err != nil {
		t.Fatal(err)
	}
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	for prog, n := range map[string]uint64{"/usr/bin/python3.13": 1, "/usr/bin/curl": 2, "/usr/bin/perl": 1, "/usr/bin/zsh": 1, "/opt/v1/bin/tool": 3, "memfd:payload": 1} {
		o.AddProgram(prog, n)
	}
	r := Diff(p, o)
	wantNew := []ProgramFinding{
		{Program: "/usr/bin/curl", Count: 2, Risk: risk.Downloader, Level: risk.High, File: agent, Line: 5}, // before git
		{Program: "/usr/bin/perl", Count: 1, File: agent, Line: 6},                                          // before python's comment
		{Program: "/usr/bin/zsh", Count: 1, Risk: risk.Shell, Level: risk.High, File: agent, Line: 10},      // after the last entry's reason
		{Program: "memfd:payload", Count: 1, File: agent, Line: 10},
	}
	if !reflect.DeepEqual(r.NewPrograms, wantNew) {
		t.Errorf("new programs:\n got %+v\nwant %+v", r.NewPrograms, wantNew)
	}
	wantUnused := []ProgramFinding{
		{Program: "/usr/bin/git", File: agent, Line: 5},
		{Program: "/usr/bin/sh", Risk: risk.Shell, Level: risk.High, File: agent, Line: 8},
	}
	if !reflect.DeepEqual(r.UnusedPrograms, wantUnused) {
		t.Errorf("unused programs:\n got %+v\nwant %+v", r.UnusedPrograms, wantUnused)
	}
	if f := r.NewPrograms[0]; f.RiskLabel() != "downloader, high" {
		t.Errorf("risk label %q", f.RiskLabel())
	}

	// An observation without programs (an older sysgate's) leaves no
	// entry unused, and has no new ones.
	if r := Diff(p, obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})); r.NewPrograms != nil || r.UnusedPrograms != nil {
		t.Errorf("observation without programs: %+v %+v", r.NewPrograms, r.UnusedPrograms)
	}
	// Without a programs section in the stack, nothing is gated.
	blind, err := Load(writeFile(t, dir, "blind.yaml", "version: 1\nagent: a\nsyscalls:\n  x86_64: [read]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := Diff(blind, o); r.NewPrograms != nil || r.UnusedPrograms != nil {
		t.Errorf("ungated profile reports programs: %+v", r)
	}
}

func TestObservationPrograms(t *testing.T) {
	a := obs("agent", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	a.AddProgram("/usr/bin/python3.13", 1)
	b := obs("agent", 1, nil)
	b.AddProgram("/usr/bin/python3.13", 2)
	b.AddProgram("/usr/bin/git", 1)
	merged := mergeAll(t, a, b)
	if want := map[string]uint64{"/usr/bin/python3.13": 3, "/usr/bin/git": 1}; !reflect.DeepEqual(merged.Programs, want) {
		t.Errorf("merged programs %v", merged.Programs)
	}
	if a.Programs["/usr/bin/python3.13"] != 1 {
		t.Errorf("merge modified its argument")
	}
	if got, want := merged.String(), "observation of \"agent\", 2 runs\n  x86_64: read×1\n  programs: /usr/bin/git×1 /usr/bin/python3.13×3"; got != want {
		t.Errorf("prints as\n%s\nwant\n%s", got, want)
	}

	writeAndReadObservation(t, filepath.Join(t.TempDir(), "obs.json"), merged, `{
  "agent": "agent",
  "runs": 2,
  "syscalls": {
    "x86_64": {
      "read": 1
    }
  },
  "programs": {
    "/usr/bin/git": 1,
    "/usr/bin/python3.13": 3
  },
  "seen_in": [
    {
      "kind": "program",
      "name": "/usr/bin/git",
      "runs": [
        1
      ]
    },
    {
      "kind": "syscall",
      "arch": "x86_64",
      "name": "read",
      "runs": [
        2
      ]
    }
  ]
}
`)
	for _, bad := range []string{`{"agent":"a","programs":{"":1}}`, `{"agent":"a","programs":["/usr/bin/git"]}`, `{"agent":"a","program":{"/x":1}}`} {
		if _, err := DecodeObservation([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
