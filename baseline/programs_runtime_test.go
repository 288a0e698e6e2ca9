package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

const (
	pyenvPython  = "/root/.pyenv/versions/3.11.7/bin/python3.11"
	debianPython = "/usr/bin/python3.11"
)

func TestProgramPlaceholdersParseAndFormat(t *testing.T) {
	src := "version: 1\nprograms:\n  - /usr/bin/git\n  - \"{node}\"\n  - path: \"{python}\"\n    reason: runs the agent\n  - \"{runtime}\"\n"
	doc, err := ParseDocument("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var runtimes []string
	for _, e := range doc.Programs {
		runtimes = append(runtimes, e.Runtime+"="+e.Path)
	}
	if want := []string{"=/usr/bin/git", "node={node}", "python={python}", "runtime={runtime}"}; !reflect.DeepEqual(runtimes, want) {
		t.Errorf("entries %v, want %v", runtimes, want)
	}
	if got := string(doc.Format()); got != DefaultHeader+"\n\n"+src {
		t.Errorf("formats as\n%s", got)
	}
	again, err := ParseDocument("f.yaml", doc.Format())
	if err != nil || len(again.Programs) != len(doc.Programs) {
		t.Fatalf("round trip: %v %+v", err, again.Programs)
	}
	for i, e := range again.Programs {
		e.Line = doc.Programs[i].Line // the header moved them
		if !reflect.DeepEqual(e, doc.Programs[i]) {
			t.Errorf("round trip: %+v, was %+v", e, doc.Programs[i])
		}
	}
}

func TestProgramPlaceholdersRejected(t *testing.T) {
	const head = "version: 1\nprograms:\n"
	const pin = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	cases := []struct{ name, entry, substr string }{
		{"unknown", `  - "{ruby}"`, "unknown placeholder {ruby} in programs (known: {node}, {python}, {runtime})"},
		{"layer-only", `  - "{os}"`, "unknown placeholder {os} in programs (known: {node}, {python}, {runtime})"},
		{"go", `  - "{go}"`, "{go} is no programs placeholder: a Go program's runtime is compiled into it"},
		{"not alone", `  - "{python}/../bin/pip"`, "a placeholder stands alone in programs: write exactly {node}, {python}, {runtime}, or a path"},
		{"unclosed", `  - "{python"`, "write ./{python"},
		{"pinned", "  - path: \"{python}\"\n    sha256: " + pin, "{python} stands for whichever interpreter the run's command starts and cannot pin a content"},
	}
	_, err := ParseDocument("f.yaml", []byte(head+"  - {python}\n"))
	if errs := Errors(err); len(errs) != 1 || errs[0].Line != 3 || !strings.Contains(errs[0].Message, `quote the placeholder, as - "{python}"`) {
		t.Errorf("a bare {python}: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDocument("f.yaml", []byte(head+c.entry+"\n"))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			for _, e := range Errors(err) {
				if e.Line == 3 && e.Kind == KindProgram && strings.Contains(e.Message, c.substr) {
					return
				}
			}
			t.Errorf("want line 3 [%s] containing %q; got:\n%v", KindProgram, c.substr, err)
		})
	}
}

func TestProgramPlaceholdersMatchOnlyWhatTheyAreBoundTo(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.yaml", "version: 1\nprograms:\n  - \"{python}\"\n  - /usr/bin/git\n")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.AllowsProgram(pyenvPython) || p.AllowsProgram("{python}") {
		t.Error("an unbound {python} allows a program")
	}
	pyenv := p.BindRuntimes(RuntimePrograms{"python": {pyenvPython}, "node": {"/usr/bin/node"}})
	if !pyenv.AllowsProgram(pyenvPython) || pyenv.AllowsProgram(debianPython) || pyenv.AllowsProgram("/usr/bin/node") {
		t.Errorf("bound to pyenv's: allows pyenv %v, debian %v, node %v", pyenv.AllowsProgram(pyenvPython), pyenv.AllowsProgram(debianPython), pyenv.AllowsProgram("/usr/bin/node"))
	}
	if e, ok := pyenv.LookupProgram(pyenvPython); !ok || e.Line != 3 || e.Runtime != "python" {
		t.Errorf("lookup: %+v %v", e, ok)
	}
	if p.AllowsProgram(pyenvPython) {
		t.Error("binding changed the profile it was made from")
	}
	debian := p.BindRuntimes(RuntimePrograms{"python": {debianPython}})
	if !debian.AllowsProgram(debianPython) || debian.AllowsProgram(pyenvPython) {
		t.Error("bound to Debian's: wrong interpreter allowed")
	}
	if got, want := pyenv.ProgramPaths(), []string{"/usr/bin/git", pyenvPython}; !reflect.DeepEqual(got, want) {
		t.Errorf("ProgramPaths %v, want %v", got, want)
	}
	any := writeFile(t, dir, "b.yaml", "version: 1\nprograms:\n  - \"{runtime}\"\n")
	pa, err := Load(any)
	if err != nil {
		t.Fatal(err)
	}
	pa = pa.BindRuntimes(RuntimePrograms{"python": {pyenvPython}, "node": {"/usr/bin/node"}})
	if !pa.AllowsProgram(pyenvPython) || !pa.AllowsProgram("/usr/bin/node") || pa.AllowsProgram("/usr/bin/git") {
		t.Error("{runtime} does not allow exactly the bound runtimes")
	}
}

func TestDiffBindsPlaceholdersFromTheObservation(t *testing.T) {
	path := writeFile(t, t.TempDir(), "a.yaml", "version: 1\nprograms:\n  - \"{python}\"\nsyscalls:\n  x86_64: [read]\n")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	o.AddProgram(debianPython, 1)
	if r := Diff(p, o); len(r.NewPrograms) != 1 || len(r.UnusedPrograms) != 1 {
		t.Errorf("without a binding: new %+v unused %+v", r.NewPrograms, r.UnusedPrograms)
	}
	o.RuntimePrograms = RuntimePrograms{"python": {debianPython}}
	if r := Diff(p, o); len(r.NewPrograms) != 0 || len(r.UnusedPrograms) != 0 {
		t.Errorf("bound by the observation: new %+v unused %+v", r.NewPrograms, r.UnusedPrograms)
	}
	// A profile the run bound keeps its own binding.
	if r := Diff(p.BindRuntimes(RuntimePrograms{"python": {pyenvPython}}), o); len(r.NewPrograms) != 1 || r.NewPrograms[0].Program != debianPython {
		t.Errorf("bound by the run: new %+v", r.NewPrograms)
	}
}

func TestRecordWritesProgramPlaceholders(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, prog := range []string{pyenvPython, "/usr/bin/git", "/usr/bin/node"} {
		o.AddProgram(prog, 1)
		o.AddProgramSHA256(prog, sum)
	}
	o.RuntimePrograms = RuntimePrograms{"python": {pyenvPython}}
	// Node ran, but the command did not start it: it stays a path.
	o.AddEnvironment(scmp.X86_64, Environment{Runtimes: []Runtime{{Name: "node", Version: "20.19.2", Path: "/usr/bin/node"}}})
	res, err := WriteRecorded(path, o, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	wantPrograms := "programs:\n  - path: /usr/bin/git\n    sha256: " + sum + "\n  - path: /usr/bin/node\n    sha256: " + sum + "\n  - \"{python}\"\n"
	if !strings.Contains(string(data), wantPrograms) {
		t.Fatalf("recorded:\n%s\nwant programs:\n%s", data, wantPrograms)
	}
	if len(res.AddedPrograms) != 3 {
		t.Errorf("added %+v", res.AddedPrograms)
	}
	// Debian's interpreter, as another machine's run binds it: clean.
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	other := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	other.AddProgram(debianPython, 1)
	other.AddProgram("/usr/bin/git", 1)
	other.AddProgram("/usr/bin/node", 1)
	if r := Diff(p.BindRuntimes(RuntimePrograms{"python": {debianPython}}), other); len(r.NewPrograms) != 0 || len(r.UnusedPrograms) != 0 {
		t.Errorf("Debian's run: new %+v unused %+v", r.NewPrograms, r.UnusedPrograms)
	}
}

func TestRecordTurnsAPathIntoItsPlaceholder(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.yaml", "version: 1\nagent: a\nprograms:\n  # the agent's interpreter\n  - path: "+debianPython+
		"\n    reason: runs agent.py\n  - /usr/bin/git\nsyscalls:\n  x86_64: [read]\n")
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	o.AddProgram(pyenvPython, 1)
	o.AddProgram("/usr/bin/git", 1)
	o.RuntimePrograms = RuntimePrograms{"python": {pyenvPython}}
	if _, err := WriteRecorded(path, o, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	// Debian's path is not what ran; with the entry kept by merge, it
	// would stay beside the placeholder.
	want := "programs:\n  - /usr/bin/git\n  - \"{python}\"\n"
	if !strings.Contains(string(data), want) {
		t.Fatalf("recorded:\n%s\nwant:\n%s", data, want)
	}

	// The path of the interpreter that ran becomes the placeholder, with
	// its reason and comment.
	writeFile(t, dir, "a.yaml", "version: 1\nagent: a\nprograms:\n  # the agent's interpreter\n  - path: "+pyenvPython+
		"\n    reason: runs agent.py\n  - /usr/bin/git\nsyscalls:\n  x86_64: [read]\n")
	if _, err := WriteRecorded(path, o, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	want = "programs:\n  - /usr/bin/git\n  # the agent's interpreter\n  - path: \"{python}\"\n    reason: runs agent.py\n"
	if !strings.Contains(string(data), want) {
		t.Fatalf("recorded:\n%s\nwant:\n%s", data, want)
	}
	// Recorded again with Debian's interpreter: the placeholder holds.
	o2 := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	o2.AddProgram(debianPython, 1)
	o2.AddProgram("/usr/bin/git", 1)
	o2.RuntimePrograms = RuntimePrograms{"python": {debianPython}}
	res, err := WriteRecorded(path, o2, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if string(again) != string(data) || len(res.AddedPrograms)+len(res.RemovedPrograms) != 0 {
		t.Errorf("re-recorded with Debian's python:\n%s\nadded %+v removed %+v", again, res.AddedPrograms, res.RemovedPrograms)
	}
}

func TestObservationRuntimeProgramsMergeAndDecode(t *testing.T) {
	a := obs("a", 1, nil)
	a.RuntimePrograms = RuntimePrograms{"python": {pyenvPython}}
	b := obs("a", 1, nil)
	b.RuntimePrograms = RuntimePrograms{"python": {debianPython}, "node": {"/usr/bin/node"}}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	want := RuntimePrograms{"python": {pyenvPython, debianPython}, "node": {"/usr/bin/node"}}
	if !reflect.DeepEqual(a.RuntimePrograms, want) {
		t.Errorf("merged %v, want %v", a.RuntimePrograms, want)
	}
	if _, err := DecodeObservation([]byte(`{"agent":"a","runs":1,"syscalls":{},"runtime_programs":{"python":["bin/python3"]}}`)); err == nil {
		t.Error("a relative runtime program was accepted")
	}
}
