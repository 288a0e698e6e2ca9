package baseline

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

var pyenv = Runtime{Name: "python", Version: "3.11.7", Path: "/root/.pyenv/versions/3.11.7/bin/python3.11"}

func TestEnvironmentBlockRoundTrips(t *testing.T) {
	in := `# h

version: 1
agent: a
environment:
  x86_64:
    kernel: 6.18
    os: debian 12
    libc:
      - glibc 2.36
      - glibc 2.39
    runtimes:
      - go 1.26.8
      - python unknown /opt/py/bin/python3
      - python 3.11.7 /root/.pyenv/versions/3.11.7/bin/python3.11
syscalls:
  x86_64:
    - read
`
	doc, err := ParseDocument("a.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	env, ok := doc.EnvironmentFor(scmp.X86_64)
	if !ok {
		t.Fatal("no x86_64 environment")
	}
	want := Environment{Kernel: []string{"6.18"}, OS: []string{"debian 12"}, Libc: []string{"glibc 2.36", "glibc 2.39"},
		Runtimes: []Runtime{{Name: "go", Version: "1.26.8"}, {Name: "python", Path: "/opt/py/bin/python3"}, pyenv}}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("parsed %+v, want %+v", env, want)
	}
	if _, ok := doc.EnvironmentFor(scmp.AArch64); ok {
		t.Error("aarch64 has no environment in the file")
	}
	if got := string(doc.Format()); got != in {
		t.Errorf("format changed the file:\n%s", got)
	}
}

func TestKernelVersion(t *testing.T) {
	for release, want := range map[string]string{
		"6.18.44-fc-v657":                    "6.18",
		"6.18.0-1-amd64":                     "6.18",
		"6.8.0-1017-azure":                   "6.8",
		"6.18":                               "6.18",
		"6.19-rc3":                           "6.19",
		"5.15.167.4-microsoft-standard-WSL2": "5.15",
		"custom":                             "custom",
		"":                                   "",
	} {
		if got := KernelVersion(release); got != want {
			t.Errorf("KernelVersion(%q) = %q, want %q", release, got, want)
		}
	}
}

// Baselines recorded before the fingerprint kept only the kernel's
// version carry whole releases, one per machine they were recorded on:
// they load as that version and format in the new form, a run on another
// build of it is no drift, and a run on another version is.
func TestWholeKernelReleasesLoadAsTheirVersion(t *testing.T) {
	doc, err := ParseDocument("a.yaml", []byte("version: 1\nagent: a\nenvironment:\n  x86_64:\n    kernel:\n      - 6.18.44-fc-v657\n      - 6.18.44-fc-v669\n    os: debian 12\nsyscalls:\n  x86_64:\n    - read\n"))
	if err != nil {
		t.Fatal(err)
	}
	recorded, _ := doc.EnvironmentFor(scmp.X86_64)
	if !reflect.DeepEqual(recorded.Kernel, []string{"6.18"}) {
		t.Errorf("loaded kernel %q, want [6.18]", recorded.Kernel)
	}
	if f := string(doc.Format()); !strings.Contains(f, "    kernel: 6.18\n    os: debian 12\n") {
		t.Errorf("formatted:\n%s", f)
	}
	for now, want := range map[string]string{
		"6.18.44-fc-v1300": "",
		"6.18.0-1-amd64":   "",
		"6.8.0-1017-azure": "kernel 6.18 → 6.8",
		"6.19.2":           "kernel 6.18 → 6.19",
	} {
		got := DescribeChanges(CompareEnvironments(recorded, Environment{Kernel: []string{now}, OS: []string{"debian 12"}}))
		if got != want {
			t.Errorf("recorded on 6.18.44-fc-v657 and -v669, checked on %s: drift %q, want %q", now, got, want)
		}
	}
	// An environment built in code, not parsed, compares the same way.
	raw := Environment{Kernel: []string{"6.18.44-fc-v657"}}
	if c := CompareEnvironments(raw, Environment{Kernel: []string{"6.18.44-fc-v1300"}}); len(c) != 0 {
		t.Errorf("two builds of 6.18: %v", c)
	}
	// Merged with a run on another build, still one version.
	raw.Merge(Environment{Kernel: []string{"6.18.44-fc-v1300"}})
	if !reflect.DeepEqual(raw.Kernel, []string{"6.18"}) {
		t.Errorf("merged kernel %q, want [6.18]", raw.Kernel)
	}
}

func TestRuntimePathWithSpaces(t *testing.T) {
	r := Runtime{Name: "python", Version: "3.12.1", Path: "/opt/my tools/bin/python3.12"}
	back, err := ParseRuntime(r.String())
	if err != nil || back != r {
		t.Errorf("round trip of %q: %+v, %v", r.String(), back, err)
	}
}

func TestEnvironmentBlockErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"environment: [x]", "environment must map an architecture"},
		{"environment:\n  sparc: {os: x}", `unknown architecture "sparc"`},
		{"environment:\n  x86_64: {shell: bash}", `unknown key "shell"`},
		{"environment:\n  x86_64: {runtimes: [python3]}", `want "NAME VERSION /PATH"`},
		{"environment:\n  x86_64: {os: {a: b}}", "os must be a value or a list"},
	} {
		_, err := ParseDocument("e.yaml", []byte("version: 1\n"+tc.body+"\nsyscalls:\n  x86_64: [read]\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "e.yaml:") {
			t.Errorf("%q: error %v, want one naming the file and %q", tc.body, err, tc.want)
		}
	}
}

func TestCompareEnvironmentsNamesWhatChanged(t *testing.T) {
	recorded := Environment{Kernel: []string{"6.1.0"}, OS: []string{"debian 12"}, Libc: []string{"glibc 2.36"}, Runtimes: []Runtime{pyenv}}
	if c := CompareEnvironments(recorded, recorded); len(c) != 0 {
		t.Errorf("same environment: changes %v", c)
	}
	system := Runtime{Name: "python", Version: "3.11.2", Path: "/usr/bin/python3.11"}
	now := Environment{Kernel: []string{"6.1.0"}, OS: []string{"ubuntu 24.04"}, Libc: []string{"glibc 2.39"},
		Runtimes: []Runtime{system, {Name: "node", Version: "22.1.0", Path: "/usr/bin/node"}}}
	got := DescribeChanges(CompareEnvironments(recorded, now))
	want := "os debian 12 → ubuntu 24.04, glibc 2.36 → 2.39, python 3.11.7 → 3.11.2, node (not recorded) → 22.1.0"
	if got != want {
		t.Errorf("changes %q\nwant      %q", got, want)
	}
	// Same version, another build: the path is what changed.
	moved := Environment{Runtimes: []Runtime{{Name: "python", Version: "3.11.7", Path: "/usr/local/bin/python3.11"}}}
	if got := DescribeChanges(CompareEnvironments(recorded, moved)); got != "python 3.11.7 (/root/.pyenv/versions/3.11.7/bin/python3.11) → 3.11.7 (/usr/local/bin/python3.11)" {
		t.Errorf("moved interpreter: %q", got)
	}
	// A value among several recorded ones is no change; an unknown part
	// (empty) is none either.
	merged := recorded.Clone()
	merged.Merge(Environment{Libc: []string{"glibc 2.39"}})
	if c := CompareEnvironments(merged, Environment{Libc: []string{"glibc 2.39"}}); len(c) != 0 {
		t.Errorf("a recorded libc is drift: %v", c)
	}
}

func TestRecordWritesTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	o.AddEnvironment(scmp.X86_64, Environment{OS: []string{"debian 12"}, Runtimes: []Runtime{pyenv}})
	if _, err := WriteRecorded(path, o, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "agent: a\nenvironment:\n  x86_64:\n    os: debian 12\n    runtimes:\n      - python 3.11.7 /root/.pyenv/versions/3.11.7/bin/python3.11\nsyscalls:") {
		t.Fatalf("no environment block under agent:\n%s", data)
	}
	// Merged (keep-unseen): both machines; replaced otherwise.
	o2 := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	o2.AddEnvironment(scmp.X86_64, Environment{OS: []string{"ubuntu 24.04"}})
	if _, err := WriteRecorded(path, o2, RecordOptions{Merge: true}); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if env, _ := p.Environment(scmp.X86_64); !reflect.DeepEqual(env.OS, []string{"debian 12", "ubuntu 24.04"}) || len(env.Runtimes) != 1 {
		t.Errorf("merged environment %+v", env)
	}
	if _, err := WriteRecorded(path, o2, RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	p, _ = Load(path)
	if env, _ := p.Environment(scmp.X86_64); !reflect.DeepEqual(env, Environment{OS: []string{"ubuntu 24.04"}}) {
		t.Errorf("replaced environment %+v", env)
	}
}

func TestObservationCarriesTheEnvironment(t *testing.T) {
	a := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	a.AddEnvironment(scmp.X86_64, Environment{Libc: []string{"glibc 2.36"}})
	b := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1}})
	b.AddEnvironment(scmp.X86_64, Environment{Libc: []string{"glibc 2.39"}})
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "o.json")
	if err := WriteObservation(path, a); err != nil {
		t.Fatal(err)
	}
	back, err := ReadObservation(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Environment[scmp.X86_64].Libc; !reflect.DeepEqual(got, []string{"glibc 2.36", "glibc 2.39"}) {
		t.Errorf("libc after merge and round trip: %v", got)
	}
}

// A runtime under the home or the checkout is written from its
// placeholder, and reads back: root's pyenv and a runner's are one
// interpreter; a system path stays.
func TestEnvironmentAbstractsRuntimePaths(t *testing.T) {
	env := Environment{Runtimes: []Runtime{pyenv, {Name: "python", Version: "3.12.1", Path: "/work/app/.venv/bin/python3"}, {Name: "node", Version: "20.19.2", Path: "/usr/bin/node"}}}
	got := env.Abstract(FileContext{Workspace: "/work/app", Home: "/root", Tmp: "/tmp", Runtime: []string{"/root/.pyenv/versions/3.11.7"}})
	want := []string{"node 20.19.2 /usr/bin/node", "python 3.11.7 {home}/.pyenv/versions/3.11.7/bin/python3.11", "python 3.12.1 {workspace}/.venv/bin/python3"}
	if len(got.Runtimes) != len(want) {
		t.Fatalf("got %v", got.Runtimes)
	}
	for i, r := range got.Runtimes {
		if r.String() != want[i] {
			t.Errorf("runtime %d: %q, want %q", i, r.String(), want[i])
		}
		if back, err := ParseRuntime(r.String()); err != nil || back != r {
			t.Errorf("ParseRuntime(%q) = %v, %v", r.String(), back, err)
		}
	}
	runner := Environment{Runtimes: []Runtime{{Name: "python", Version: "3.11.7", Path: "/home/runner/.pyenv/versions/3.11.7/bin/python3.11"}}}
	if c := CompareEnvironments(got, runner.Abstract(FileContext{Home: "/home/runner"})); len(c) != 0 {
		t.Errorf("the same pyenv under another home drifted: %v", c)
	}
	if env.Runtimes[0].Path != pyenv.Path {
		t.Errorf("Abstract changed its receiver")
	}
}

// The variables that change what a runtime touches are fingerprinted,
// read back, and a difference is named as itself; a baseline without
// them (an older one) compares nothing.
func TestEnvironmentVariables(t *testing.T) {
	env := []string{"HOME=/root", "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=/root/lib:/usr/lib/extra", "NODE_OPTIONS=--require ./x.js"}
	vars := VariablesOf(env)
	want := []string{"NODE_OPTIONS=--require ./x.js", "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=/root/lib:/usr/lib/extra"}
	if !slices.Equal(vars, want) {
		t.Fatalf("VariablesOf = %q, want %q", vars, want)
	}
	recorded := Environment{Kernel: []string{"6.18"}, Variables: vars}.Abstract(FileContext{Home: "/root"})
	if !slices.Contains(recorded.Variables, "PYTHONPATH={home}/lib:/usr/lib/extra") {
		t.Errorf("a path value is not written from its placeholder: %q", recorded.Variables)
	}
	doc, err := ParseDocument("a.yaml", []byte("version: 1\nagent: a\nsyscalls:\n  x86_64: [read]\n"))
	if err != nil {
		t.Fatal(err)
	}
	doc.SetEnvironment(scmp.X86_64, recorded)
	doc.SetEnvironment(scmp.AArch64, Environment{Kernel: []string{"6.18"}, Variables: []string{}})
	back, err := ParseDocument("a.yaml", doc.Format())
	if err != nil {
		t.Fatalf("%v\n%s", err, doc.Format())
	}
	got, _ := back.EnvironmentFor(scmp.X86_64)
	if !slices.Equal(got.Variables, recorded.Variables) {
		t.Errorf("read back %q, want %q", got.Variables, recorded.Variables)
	}
	if none, _ := back.EnvironmentFor(scmp.AArch64); none.Variables == nil {
		t.Errorf("recorded with none set reads back as not recorded")
	}
	// What record writes, sysgate baseline fmt keeps: no comment it
	// would have to drop (fmt refuses to rewrite such a file).
	for _, w := range back.Warnings {
		if w.Kind == KindFormat {
			t.Errorf("record's environment is not fmt-stable: %v\n%s", w, doc.Format())
		}
	}
	if again := back.Format(); !bytes.Equal(again, doc.Format()) {
		t.Errorf("fmt rewrites what record wrote:\n%s\nvs\n%s", doc.Format(), again)
	}
	now := Environment{Variables: []string{"PYTHONPATH={home}/lib:/usr/lib/extra", "NODE_OPTIONS=--require ./x.js"}}
	if got := DescribeChanges(CompareEnvironments(recorded, now)); got != "PYTHONDONTWRITEBYTECODE=1 → PYTHONDONTWRITEBYTECODE unset" {
		t.Errorf("changes: %q", got)
	}
	if c := CompareEnvironments(Environment{Kernel: []string{"6.18"}}, now); len(c) != 0 {
		t.Errorf("a baseline without variables drifted: %v", c)
	}
	if _, err := ParseDocument("b.yaml", []byte("version: 1\nenvironment:\n  x86_64:\n    variables:\n      - HOME=/root\nsyscalls:\n  x86_64:\n    - read\n")); err == nil || !strings.Contains(err.Error(), `variables entry "HOME=/root"`) {
		t.Errorf("a variable that is not fingerprinted: %v", err)
	}
}
