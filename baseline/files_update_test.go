package baseline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline/risk"
)

func filesObservation(accesses ...ObservedFile) *Observation {
	o := NewObservation("a")
	o.Runs = 1
	o.Files = map[string]map[string]uint64{}
	for _, a := range accesses {
		o.AddFile(a.Path, a.Op, max(a.Count, 1))
	}
	return o
}

func TestObservationFilesRoundTrip(t *testing.T) {
	o := filesObservation(ObservedFile{Path: "{workspace}/a", Op: FileRead, Count: 2}, ObservedFile{Path: "/etc/hosts", Op: FileRead})
	other := filesObservation(ObservedFile{Path: "{workspace}/a", Op: FileRead}, ObservedFile{Path: "{tmp}/x", Op: FileDelete})
	if err := o.Merge(other); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"files":{"delete":{"{tmp}/x":1},"read":{"/etc/hosts":1,"{workspace}/a":3}}`) {
		t.Errorf("json: %s", data)
	}
	back, err := DecodeObservation(data)
	if err != nil || len(back.FileList()) != 3 || back.FileList()[0] != (ObservedFile{Path: "/etc/hosts", Op: FileRead, Count: 1}) {
		t.Errorf("back: %v %+v", err, back.FileList())
	}
	for _, bad := range []string{`{"files":{"raed":{"/a":1}}}`, `{"files":{"read":{"a":1}}}`, `{"files":{"read":{"/a/../b":1}}}`, `{"files":{"read":{"{nope}/b":1}}}`, `{"files":{"read":{"{tmp}/../b":1}}}`} {
		if _, err := DecodeObservation([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestDiffFiles(t *testing.T) {
	p := loadFilesSection(t, "files:\n  read:\n    - \"{runtime}/**\"\n    - /etc/hosts\n    - /etc/unused\n  write:\n    - \"{tmp}/**\"\n")
	o := filesObservation(
		ObservedFile{Path: "{runtime}/os.py", Op: FileRead},
		ObservedFile{Path: "/etc/hosts", Op: FileRead},
		ObservedFile{Path: "{home}/.ssh/id_rsa", Op: FileRead, Count: 2},
		ObservedFile{Path: "{runtime}/os.py", Op: FileWrite},
	)
	r := Diff(p, o)
	if len(r.NewFiles) != 2 || len(r.UnusedFiles) != 2 {
		t.Fatalf("new %+v unused %+v", r.NewFiles, r.UnusedFiles)
	}
	key := r.NewFiles[0]
	if key.Path != "{home}/.ssh/id_rsa" || key.Op != FileRead || key.Count != 2 || key.Sensitive != "ssh key" || key.Level != risk.High ||
		key.Explain != "not in the baseline" { // /etc/hosts is no neighbour of an ssh key
		t.Errorf("key finding %+v", key)
	}
	if w := r.NewFiles[1]; w.Path != "{runtime}/os.py" || w.Op != FileWrite || w.Explain != "not in the baseline; it has {runtime}/**: read" {
		t.Errorf("write finding %+v", w)
	}
	if u := r.UnusedFiles; u[0].Path != "/etc/unused" || u[0].Line != 6 || u[1].Path != "{tmp}/**" || u[1].Op != FileWrite {
		t.Errorf("unused %+v", u)
	}
	// A file-blind profile reports no new accesses; an observation
	// without files no unused entries.
	blind := loadFilesSection(t, "syscalls:\n  x86_64: [read]\n")
	if r := Diff(blind, o); len(r.NewFiles) != 0 {
		t.Errorf("file-blind diff: %+v", r.NewFiles)
	}
	if r := Diff(p, NewObservation("a")); len(r.UnusedFiles) != 0 {
		t.Errorf("no files observed, unused: %+v", r.UnusedFiles)
	}
}

func TestRecordFilesMerge(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nfiles:\n  read:\n    - \"{runtime}/**\"\n")
	path := writeFile(t, dir, "a.yaml", `version: 1
agent: a
extends: [base.yaml]
files:
  read:
    - path: "{home}/.gitconfig"
      reason: git identity
    - /etc/stale
    - "{runtime}/**"
`)
	o := filesObservation(
		ObservedFile{Path: "{runtime}/os.py", Op: FileRead},
		ObservedFile{Path: "{home}/.gitconfig", Op: FileRead},
		ObservedFile{Path: "{tmp}/tmpab12cd_x", Op: FileWrite},
		ObservedFile{Path: "{tmp}/tmpab12cd_x/x", Op: FileWrite},
	)
	doc, res, err := FromObservation(path, o, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := string(doc.Format())
	if !strings.Contains(got, "files:\n  read:\n    - path: \"{home}/.gitconfig\"\n      reason: git identity\n  write:\n    - \"{tmp}/tmp????????/**\"\n") {
		t.Errorf("without merge:\n%s", got)
	}
	if len(res.AddedFiles) != 1 || len(res.RemovedFiles) != 2 {
		t.Errorf("added %+v removed %+v", res.AddedFiles, res.RemovedFiles)
	}
	doc, _, err = FromObservation(path, o, RecordOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Format()); !strings.Contains(got, "    - /etc/stale\n") || strings.Contains(got, "    - \"{runtime}/**\"\n  write") {
		t.Errorf("merge keeps /etc/stale, drops what the base has:\n%s", got)
	}
	// An observation without files leaves the section alone.
	doc, _, err = FromObservation(path, NewObservation("a"), RecordOptions{Merge: true})
	if err != nil || !doc.HasFiles || len(doc.Files) != 2 {
		t.Errorf("no files observed: %v %+v", err, doc)
	}
}

func TestRecordFilesStartsGating(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.yaml")
	doc, _, err := FromObservation(path, filesObservation(), RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Format()); !strings.Contains(got, "files: {}\n") {
		t.Errorf("an observation that saw no files still gates them:\n%s", got)
	}
}

func TestWidenFiles(t *testing.T) {
	base := map[string]string{"a.yaml": "version: 1\nfiles:\n  read:\n    - \"{runtime}/**\"\n    - /etc/hosts\n"}
	cur := map[string]string{"a.yaml": "version: 1\nfiles:\n  read:\n    - \"{runtime}/**\"\n    - \"{runtime}/lib/x\"\n    - /etc/ssl/*\n" +
		"  write:\n    - path: \"{workspace}/**\"\n      reason: edits the checkout\n"}
	got := widenedSubjects(Widen(loadFiles(t, base, "a.yaml"), loadFiles(t, cur, "a.yaml")))
	want := "file /etc/ssl/*: read; file {workspace}/**: write"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	ws := Widen(loadFiles(t, base, "a.yaml"), loadFiles(t, cur, "a.yaml"))
	if ws[1].Risk != risk.SensitivePath || ws[1].Level != risk.High || !strings.HasPrefix(ws[1].RiskReason, "covers sensitive paths: ") {
		t.Errorf("sensitive widening %+v", ws[1])
	}
	gone := map[string]string{"a.yaml": "version: 1\nsyscalls:\n  x86_64: [read]\n"}
	if got := widenedSubjects(Widen(loadFiles(t, base, "a.yaml"), loadFiles(t, gone, "a.yaml"))); !strings.Contains(got, "ungated") {
		t.Errorf("dropped section: %s", got)
	}
	// Issue 43, item 7: a section the base file lacked widens by every
	// entry: a stack that layers the file over one with the section
	// gates them.
	if got := Widen(loadFiles(t, gone, "a.yaml"), loadFiles(t, cur, "a.yaml")); len(got) != len(loadFiles(t, cur, "a.yaml").FileEntries()) {
		t.Errorf("a files section added: %s, want every entry", widenedSubjects(got))
	}
}

func TestWriteRecordedFilesLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.yaml")
	o := filesObservation(ObservedFile{Path: "/etc/hosts", Op: FileRead, Count: 2}, ObservedFile{Path: "{tmp}/x", Op: FileWrite})
	res, err := WriteRecorded(path, o, RecordOptions{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.AddedFiles) != 2 || res.AddedFiles[0].Line != 7 || res.AddedFiles[1].Line != 9 {
		t.Errorf("added %+v", res.AddedFiles)
	}
	if got := o.String(); !strings.HasSuffix(got, "\n  files read: /etc/hosts×2\n  files write: {tmp}/x×1") {
		t.Errorf("String: %q", got)
	}
	data, err := json.Marshal(res.AddedFiles[0])
	if err != nil || !strings.Contains(string(data), `"op":"read"`) {
		t.Errorf("json %s %v", data, err)
	}
}

func TestRecordFilesRepo(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "baselines", "a.yaml")
	o := filesObservation(ObservedFile{Path: real + "/agents/agent.py", Op: FileRead}, ObservedFile{Path: real + "x/y", Op: FileRead})
	doc, _, err := FromObservation(path, o, RecordOptions{Agent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Format()); !strings.Contains(got, "    - \"{repo}/agents/agent.py\"\n") || !strings.Contains(got, "    - "+real+"x/y\n") {
		t.Errorf("got:\n%s", got)
	}
}

// TestRecordSaysWhatAGlobCovers: record reports a glob it writes that
// covers credentials (issue 43, item 10), and a path it names.
func TestRecordSaysWhatAGlobCovers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.yaml")
	o := filesObservation(
		ObservedFile{Path: "{workspace}/input.txt", Op: FileRead},
		ObservedFile{Path: "{workspace}/deploy/id_rsa", Op: FileRead},
		ObservedFile{Path: "/etc/hosts", Op: FileRead},
	)
	_, res, err := FromObservation(path, o, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileFinding{}
	for _, f := range res.AddedFiles {
		got[f.Path] = f
	}
	if f := got["{workspace}/**"]; !strings.Contains(f.Covers, "/**/.env (env file, high)") || !strings.Contains(f.Covers, "ssh key") {
		t.Errorf("{workspace}/**: %+v", f)
	}
	if f := got["{workspace}/deploy/id_rsa"]; f.Sensitive != "ssh key" || f.Covers != "" {
		t.Errorf("the key: %+v", f)
	}
	if f := got["/etc/hosts"]; f.Covers != "" || f.Sensitive != "" {
		t.Errorf("/etc/hosts: %+v", f)
	}
}

// TestRecordTmpMadeUnderABase: the run's mkdir decides what it made in
// {tmp} even when a base already allows the mkdir, so the read inside
// is written by its directory's shape, not by this run's random name.
func TestRecordTmpMadeUnderABase(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nfiles:\n  write:\n    - \"{tmp}/tmp????????\"\n")
	path := writeFile(t, dir, "a.yaml", "version: 1\nagent: a\nextends: [base.yaml]\n")
	o := filesObservation(
		ObservedFile{Path: "{tmp}/tmpk3j_9x2a", Op: FileWrite},
		ObservedFile{Path: "{tmp}/tmpk3j_9x2a/in.txt", Op: FileRead},
	)
	doc, _, err := FromObservation(path, o, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Format()); !strings.Contains(got, "files:\n  read:\n    - \"{tmp}/tmp????????/**\"\n") {
		t.Errorf("got:\n%s", got)
	}
}
