package baseline

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestRecordWritesProgramsRelativeInsideTheWorkTree(t *testing.T) {
	for _, gitEntry := range []string{"dir", "file", "none"} {
		t.Run(gitEntry, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			switch gitEntry {
			case "dir":
				err = os.Mkdir(filepath.Join(root, ".git"), 0o755)
			case "file": // a linked worktree or a submodule
				err = os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, "baselines", "a.yaml")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
			for _, prog := range []string{root + "/agents/run.py", root + "/baselines/tool[1]", "/usr/bin/python3.13", "/usr/bin/bash", "memfd:payload"} {
				o.AddProgram(prog, 1)
			}
			res, err := WriteRecorded(path, o, RecordOptions{})
			if err != nil {
				t.Fatal(err)
			}
			inTree, tool := "../agents/run.py", `"tool\\[1]"`
			if gitEntry == "none" {
				inTree, tool = root+"/agents/run.py", `"`+root+`/baselines/tool\\[1]"`
			}
			data, _ := os.ReadFile(path)
			lines := []string{"  - path: /usr/bin/bash", "    reason: \"unreviewed: seen in record mode\"", "  - /usr/bin/python3.13", "  - " + tool}
			if gitEntry == "none" {
				lines = append([]string{"  - " + inTree, "  - " + tool}, lines[:3]...)
			} else {
				lines = append([]string{"  - " + inTree}, lines...)
			}
			want := DefaultHeader + "\n\nversion: 1\nagent: a\nprograms:\n" + strings.Join(lines, "\n") + "\nsyscalls:\n  x86_64:\n    - read\n"
			if string(data) != want {
				t.Fatalf("recorded:\n%s\nwant:\n%s", data, want)
			}
			if len(res.SkippedPrograms) != 1 || res.SkippedPrograms[0].Program != "memfd:payload" {
				t.Errorf("skipped: %+v", res.SkippedPrograms)
			}
			if len(res.AddedPrograms) != 4 || res.AddedPrograms[0].Program != root+"/agents/run.py" || res.AddedPrograms[0].Line != 6 {
				t.Errorf("added: %+v", res.AddedPrograms)
			}
			// The recorded run is clean against its own file, but for what
			// no line can name.
			p, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if r := Diff(p, o); len(r.NewPrograms) != 1 || r.NewPrograms[0].Program != "memfd:payload" || len(r.UnusedPrograms) != 0 {
				t.Errorf("recorded run against its file: %+v %+v", r.NewPrograms, r.UnusedPrograms)
			}
		})
	}
}

func TestRecordProgramsKeepsReasonsAndMerges(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nprograms:\n  - /usr/bin/env\n")
	path := writeFile(t, dir, "a.yaml", `version: 1
agent: a
extends: [base.yaml]
programs:
  # reviewed in #7
  - path: /usr/bin/sh
    reason: runs the hooks
  - /usr/bin/env
  - /usr/bin/git
  - path: /usr/lib/node_modules/*/bin/*
    reason: npm bins carry versions
  - path: /opt/*/unused
    reason: kept only by --merge
syscalls:
  x86_64: [read]
`)
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	for _, prog := range []string{"/usr/bin/sh", "/usr/bin/env", "/usr/lib/node_modules/npm/bin/npm", "/usr/bin/python3.13"} {
		o.AddProgram(prog, 1)
	}
	doc, res, err := FromObservation(path, o, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `programs:
  - /usr/bin/python3.13
  # reviewed in #7
  - path: /usr/bin/sh
    reason: runs the hooks
  - path: /usr/lib/node_modules/*/bin/*
    reason: npm bins carry versions
syscalls:
`
	if got := string(doc.Format()); !strings.Contains(got, want) {
		t.Errorf("recorded:\n%s\nwant it to hold:\n%s", got, want)
	}
	var removed []string
	for _, f := range res.RemovedPrograms {
		removed = append(removed, f.Program)
	}
	// env: now in the base; git and the unused pattern: not seen.
	if want := []string{"/opt/*/unused", "/usr/bin/env", "/usr/bin/git"}; !reflect.DeepEqual(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	if len(res.AddedPrograms) != 1 || res.AddedPrograms[0].Program != "/usr/bin/python3.13" {
		t.Errorf("added %+v", res.AddedPrograms)
	}

	doc, res, err = FromObservation(path, o, RecordOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	got := string(doc.Format())
	for _, keep := range []string{"  - /usr/bin/git\n", "  - path: /opt/*/unused\n"} {
		if !strings.Contains(got, keep) {
			t.Errorf("--merge lost %q:\n%s", keep, got)
		}
	}
	if strings.Contains(got, "/usr/bin/env") || len(res.RemovedPrograms) != 1 {
		t.Errorf("--merge keeps what the base now allows: %+v\n%s", res.RemovedPrograms, got)
	}

	// An observation without programs leaves the section as it is (but
	// for what the base allows: a stack lists a program once).
	doc, _, err = FromObservation(path, obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}}), RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Format()); !strings.Contains(got, "  - /usr/bin/git\n") || !strings.Contains(got, "/opt/*/unused") || strings.Contains(got, "/usr/bin/env") {
		t.Errorf("observation without programs changed the section:\n%s", got)
	}
	noSection := writeFile(t, dir, "b.yaml", "version: 1\nagent: a\nsyscalls:\n  x86_64: [read]\n")
	doc, _, err = FromObservation(noSection, obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}}), RecordOptions{})
	if err != nil || doc.HasPrograms {
		t.Errorf("observation without programs added a section: %v", err)
	}
	// A base that gates already: nothing new adds no empty section.
	doc, _, err = FromObservation(noSection, o, RecordOptions{Extends: []string{filepath.Join(dir, "base.yaml")}})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.HasPrograms || len(doc.Programs) != 3 {
		t.Errorf("programs beyond the base: %+v", doc.Programs)
	}
	only := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	only.AddProgram("/usr/bin/env", 1)
	doc, _, err = FromObservation(noSection, only, RecordOptions{Extends: []string{filepath.Join(dir, "base.yaml")}})
	if err != nil || doc.HasPrograms {
		t.Errorf("empty section added under a gating base: %v %s", err, doc.Format())
	}
}
