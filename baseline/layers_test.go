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

func TestSelectorFor(t *testing.T) {
	env := Environment{Kernel: []string{"6.18.0-1-amd64"}, OS: []string{"debian 12"}, Libc: []string{"glibc 2.36"},
		Runtimes: []Runtime{{Name: "go", Version: "1.26.8"}, {Name: "node", Version: "20.19.2"}, pyenv}}
	got := SelectorFor(scmp.X86_64, env)
	want := Selector{"arch": "x86_64", "os": "debian-12", "libc": "glibc-2.36", "kernel": "6.18", "python": "3.11", "node": "20", "go": "1.26"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("selector %v, want %v", got, want)
	}
	if p, err := got.Expand("../runtimes/{os}/python-{python}.yaml"); err != nil || p != "../runtimes/debian-12/python-3.11.yaml" {
		t.Errorf("expand: %q, %v", p, err)
	}
	for pattern, msg := range map[string]string{
		"r/{ruby}.yaml":   "unknown placeholder {ruby}",
		"r/{python}.yaml": "the environment has no python",
	} {
		if _, err := (Selector{"arch": "x86_64"}).Expand(pattern); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("expand %s: %v, want %q", pattern, err, msg)
		}
	}
}

func TestLayeredExtendsPicksTheEnvironmentsLayer(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "runtimes/debian-12/python-3.11.yaml", "version: 1\nagent: rt\nsyscalls:\n  x86_64: [read, close]\n")
	writeFile(t, dir, "runtimes/ubuntu-24.04/python-3.12.yaml", "version: 1\nagent: rt\nsyscalls:\n  x86_64: [read, getrandom]\n")
	agent := writeFile(t, dir, "agents/a.yaml", "version: 1\nagent: a\nextends:\n  - ../runtimes/{os}/python-{python}.yaml\nsyscalls:\n  x86_64: [write]\n")

	p, err := LoadStackFor(Selector{"os": "debian-12", "python": "3.11"}, agent)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Allows(scmp.X86_64, "close") || p.Allows(scmp.X86_64, "getrandom") || len(p.Unrecorded()) != 0 {
		t.Errorf("debian layer: close %v getrandom %v unrecorded %v", p.Allows(scmp.X86_64, "close"), p.Allows(scmp.X86_64, "getrandom"), p.Unrecorded())
	}
	p, err = LoadStackFor(Selector{"os": "ubuntu-24.04", "python": "3.12"}, agent)
	if err != nil {
		t.Fatal(err)
	}
	if p.Allows(scmp.X86_64, "close") || !p.Allows(scmp.X86_64, "getrandom") {
		t.Error("ubuntu layer not picked")
	}

	// Nobody recorded Python 3.13 on Ubuntu: the stack loads without the
	// layer and says which one is missing and which exist.
	p, err = LoadStackFor(Selector{"os": "ubuntu-24.04", "python": "3.13"}, agent)
	if err != nil {
		t.Fatal(err)
	}
	un := p.Unrecorded()
	if len(un) != 1 || un[0].Path != filepath.Join(dir, "runtimes/ubuntu-24.04/python-3.13.yaml") || un[0].Line != 4 ||
		un[0].Environment() != "os ubuntu-24.04, python 3.13" || len(un[0].Recorded) != 2 {
		t.Errorf("unrecorded %+v", un)
	}
	if !p.Allows(scmp.X86_64, "write") || p.Allows(scmp.X86_64, "read") {
		t.Error("the agent's own entries must load without the layer, and nothing of a layer")
	}

	// Without an environment the entry cannot be resolved: an error at its line.
	_, err = LoadStack(agent)
	var list ErrorList
	if !errors.As(err, &list) || !strings.Contains(err.Error(), "a.yaml:4: extends ../runtimes/{os}/python-{python}.yaml picks a layer by the environment") {
		t.Errorf("LoadStack without a selector: %v", err)
	}
	_, err = LoadStackFor(Selector{"os": "debian-12"}, agent)
	if err == nil || !strings.Contains(err.Error(), "the environment has no python") {
		t.Errorf("selector without python: %v", err)
	}
}

func TestSnapshotReadsEveryLayer(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "rt/a-1.yaml", "version: 1\nsyscalls:\n  x86_64: [read]\n")
	writeFile(t, dir, "rt/a-2.yaml", "version: 1\nsyscalls:\n  x86_64: [close]\n")
	agent := writeFile(t, dir, "agent.yaml", "version: 1\nextends:\n  - rt/a-{python}.yaml\nsyscalls:\n  x86_64: [write]\n")
	s := SnapshotStack(agent)
	if got := len(s.Paths()); got != 3 {
		t.Errorf("snapshot read %d files (%v), want the agent and both layers", got, s.Paths())
	}
}

func TestRecordLeavesOutTheLayer(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "rt/py-3.11.yaml", "version: 1\nsyscalls:\n  x86_64: [read, close]\n")
	agent := writeFile(t, dir, "agent.yaml", "version: 1\nagent: a\nextends:\n  - rt/py-{python}.yaml\nsyscalls:\n  x86_64: [write]\n")
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1, "close": 1, "write": 1, "openat(read)": 1}})
	doc, _, err := FromObservation(agent, o, RecordOptions{Select: Selector{"python": "3.11"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Format()); !strings.Contains(got, "  - rt/py-{python}.yaml\nsyscalls:\n  x86_64:\n    - openat(read)\n    - write\n") {
		t.Errorf("recorded file:\n%s", got)
	}
}

func TestRecordLayerWritesOnlyWhatTheAgentFileLacks(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "rt/debian-12/py-3.11.yaml", "version: 1\nagent: rt-python\nsyscalls:\n  x86_64: [read, close]\n")
	agentYAML := "version: 1\nagent: a\nextends:\n  - ../rt/{os}/py-{python}.yaml\nsyscalls:\n  x86_64: [write]\n"
	agent := writeFile(t, dir, "agents/a.yaml", agentYAML)
	sel := Selector{"os": "ubuntu-24.04", "python": "3.12"}
	p, err := LoadStackFor(sel, agent)
	if err != nil || len(p.Unrecorded()) != 1 {
		t.Fatalf("unrecorded %v, %v", p.Unrecorded(), err)
	}
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1, "write": 1, "getrandom": 2}})
	o.AddEnvironment(scmp.X86_64, Environment{OS: []string{"ubuntu 24.04"}})
	res, err := RecordLayer(p.Unrecorded()[0], o, RecordOptions{Select: sel})
	if err != nil {
		t.Fatal(err)
	}
	layer, err := Load(filepath.Join(dir, "rt/ubuntu-24.04/py-3.12.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if layer.Agent() != "rt-python" || !layer.Allows(scmp.X86_64, "read") || !layer.Allows(scmp.X86_64, "getrandom") || layer.Allows(scmp.X86_64, "write") {
		t.Errorf("layer %s: want rt-python with read and getrandom, not the agent's write", layer)
	}
	if len(res.Added) != 2 {
		t.Errorf("added %v", res.Added)
	}
	if data := readFile(t, agent); data != agentYAML {
		t.Errorf("the agent's file changed:\n%s", data)
	}
	// Now recorded: the stack loads whole, and the run's syscalls are allowed.
	p, err = LoadStackFor(sel, agent)
	if err != nil || len(p.Unrecorded()) != 0 || !p.Allows(scmp.X86_64, "getrandom") {
		t.Errorf("after recording: unrecorded %v, err %v", p.Unrecorded(), err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A layer picked by a runtime the Selector does not know ({go} where no
// Go was asked) picks nothing in a partial load, and says which layers
// it could pick; a full load still fails on it (issue 43, item 7).
func TestLoadStackPartialLeavesAnUnselectedLayerOut(t *testing.T) {
	dir := t.TempDir()
	layer := writeFile(t, dir, "runtimes/go-1.26.yaml", "version: 1\nsyscalls:\n  x86_64: [read]\n")
	agent := writeFile(t, dir, "agents/a.yaml", "version: 1\nagent: a\nextends:\n  - ../runtimes/go-{go}.yaml\n  - ../runtimes/{os}.yaml\nsyscalls:\n  x86_64: [write]\n")
	sel := Selector{"arch": "x86_64", "os": "debian-12"}
	if _, err := LoadStackFor(sel, agent); err == nil || !strings.Contains(err.Error(), "the environment has no go") {
		t.Fatalf("a full load: %v, want the missing go", err)
	}
	p, err := LoadStackPartial(nil, sel, agent)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Layers()
	want := []LayerChoice{
		{File: agent, Line: 4, Pattern: "../runtimes/go-{go}.yaml", Missing: []string{"go"}, Recorded: []string{layer}},
		{File: agent, Line: 5, Pattern: "../runtimes/{os}.yaml", Path: filepath.Join(dir, "runtimes/debian-12.yaml")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("layers %+v, want %+v", got, want)
	}
	if d := got[0].Depends(); !reflect.DeepEqual(d, []string{"go"}) || got[1].Depends() != nil {
		t.Errorf("depends on the command: %v and %v, want [go] and none", d, got[1].Depends())
	}
	if p.Allows(scmp.X86_64, "read") || !p.Allows(scmp.X86_64, "write") {
		t.Error("the partial stack holds the unselected layer, or lost the agent's own entry")
	}
}
