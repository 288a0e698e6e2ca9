package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/envprobe"
	"github.com/sysgate/sysgate/internal/testutil"
)

// Issue 43, item 7: baseline diff --base must judge the layers the run
// loads. The run picks a runtime layer by the command's own interpreter
// (its "#!" line, pyenv); a diff that picked it by the python3 on its
// PATH said "no widening" for a pull request that widened the layer only
// the run selects, outside the action's baselines paths.

// otherPython is a CPython whose major.minor differs from the python3 on
// PATH, with that version: the interpreter the agent's "#!" names.
func otherPython(t *testing.T) (pathPython, other, version string) {
	t.Helper()
	pathPython = testutil.Python(t)
	first, ok := envprobe.Identify(pathPython)
	if !ok {
		t.Fatalf("%s: not identified as a runtime", pathPython)
	}
	home, _ := os.UserHomeDir()
	candidates, _ := filepath.Glob("/usr/bin/python3.*")
	more, _ := filepath.Glob(filepath.Join(home, ".pyenv", "versions", "*", "bin", "python3"))
	more2, _ := filepath.Glob("/usr/local/bin/python3.*")
	for _, c := range append(append(candidates, more...), more2...) {
		rt, ok := envprobe.Identify(c)
		if !ok || rt.Name != "python" {
			continue
		}
		if v, w := majorMinor(rt.Version), majorMinor(first.Version); v != "" && w != "" && v != w && strings.HasPrefix(v, "3.") {
			return pathPython, c, v
		}
	}
	testutil.Unavailable(t, "python", "no second CPython 3 of another major.minor than "+pathPython+" (/usr/bin/python3.*, ~/.pyenv/versions)")
	return "", "", ""
}

func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[0] + "." + parts[1]
}

const layeredAgent = "version: 1\nagent: demo\nextends:\n  - ../runtimes/python-{python}.yaml\nsyscalls:\n  x86_64:\n    - getpid\n"

func TestBaselineDiffBaseJudgesTheRunsLayer(t *testing.T) {
	pathPython, other, v := otherPython(t)
	bin := t.TempDir()
	if err := os.Symlink(pathPython, filepath.Join(bin, "python3")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	rt, _ := envprobe.Identify(pathPython)
	pathLayer := "runtimes/python-" + majorMinor(rt.Version) + ".yaml"
	runLayer := "runtimes/python-" + v + ".yaml"
	layer := "version: 1\nsyscalls:\n  x86_64:\n    - read\n"
	base := map[string]string{
		"baselines/agent.yaml": layeredAgent,
		pathLayer:              layer,
		runLayer:               layer,
		"agent.py":             "#!" + other + "\nprint('hello')\n",
	}
	// The pull request widens only the layer the agent's interpreter
	// picks, outside the baselines directory.
	dir := widenRepoFrom(t, base, map[string]string{runLayer: layer + "    - socket(AF_INET): calls home\n"})
	if err := os.Chmod(filepath.Join(dir, "agent.py"), 0o755); err != nil {
		t.Fatal(err)
	}

	// Without the run's command the diff cannot tell which layer the run
	// loads: it says so and fails closed, never "no widening".
	code, out, errOut := run(t, "baseline", "diff", "--base", "HEAD", "baselines")
	if code != ExitInconclusive || strings.Contains(out, "no widening") ||
		!strings.Contains(errOut, "{python}") || !strings.Contains(errOut, "-- CMD") {
		t.Errorf("no command: code %d out %q err %q; want 3, naming {python} and the fix (-- CMD)", code, out, errOut)
	}

	// With it, the layer the run picks is judged, and its widening found.
	code, out, errOut = run(t, "baseline", "diff", "--base", "HEAD", "baselines", "--", "./agent.py")
	if code != ExitViolation || !strings.Contains(out, runLayer) || !strings.Contains(out, "socket(AF_INET)") {
		t.Errorf("the run's command: code %d out %q err %q; want 1 naming %s socket(AF_INET)", code, out, errOut, runLayer)
	}
	// The agent's directory (--dir) is where the command is found.
	code, out, errOut = run(t, "baseline", "diff", "--base", "HEAD", "--dir", dir, filepath.Join(dir, "baselines"), "--", "./agent.py")
	if code != ExitViolation || !strings.Contains(out, "socket(AF_INET)") {
		t.Errorf("--dir: code %d out %q err %q; want 1 naming socket(AF_INET)", code, out, errOut)
	}
	// The command run through python3 on PATH picks the other layer,
	// which the pull request left alone.
	code, out, errOut = run(t, "baseline", "diff", "--base", "HEAD", "baselines", "--", "python3", "agent.py")
	if code != ExitOK || !strings.HasPrefix(out, "no widening") {
		t.Errorf("python3 agent.py: code %d out %q err %q; want 0 (its layer did not widen)", code, out, errOut)
	}
}

// A section a file did not have, added by the pull request, allows what
// its entries name: the file may be layered over one that has the
// section (the run's stack gates it), so it widens.
func TestBaselineDiffBaseSectionAdded(t *testing.T) {
	plain := "version: 1\nagent: demo\nsyscalls:\n  x86_64:\n    - read\n"
	withSections := "version: 1\nagent: demo\nprograms:\n  - /usr/bin/git\nfiles:\n  read:\n    - path: /etc/shadow\n      reason: r\n" +
		"network:\n  connect:\n    - 203.0.113.7:443\nsyscalls:\n  x86_64:\n    - read\n"
	widenRepoFrom(t, map[string]string{"baselines/agent.yaml": plain}, map[string]string{"baselines/agent.yaml": withSections})
	code, out, errOut := run(t, "baseline", "diff", "--base", "HEAD", "baselines")
	for _, want := range []string{"203.0.113.7:443", "/etc/shadow", "/usr/bin/git"} {
		if code != ExitViolation || !strings.Contains(out, want) {
			t.Errorf("a section added: code %d out %q err %q; want 1 naming %s", code, out, errOut, want)
		}
	}
}

// A layer picked by {go}: the machine's PATH has no Go runtime to ask,
// the agent's binary knows its own. validate and diff --base must not
// exit 2 for every pull request of such an agent.
func TestBaselineGoLayer(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	goLayer := "runtimes/go-" + majorMinor(strings.TrimPrefix(runtime.Version(), "go")) + ".yaml"
	layer := "version: 1\nsyscalls:\n  x86_64:\n    - read\n"
	agent := strings.Replace(layeredAgent, "python-{python}", "go-{go}", 1)
	widenRepoFrom(t, map[string]string{"baselines/agent.yaml": agent, goLayer: layer},
		map[string]string{goLayer: layer + "    - socket(AF_INET): calls home\n"})

	code, out, errOut := run(t, "baseline", "validate", "baselines/agent.yaml")
	if code != ExitOK || !strings.Contains(out, goLayer) {
		t.Errorf("validate: code %d out %q err %q; want 0, naming the recorded layer it validated (%s)", code, out, errOut, goLayer)
	}
	// The fixture has no programs, files or network sections, which
	// --strict fails on: the note itself stays a warning.
	_, out, _ = run(t, "baseline", "validate", "--strict", "baselines/agent.yaml")
	if !strings.Contains(out, "baselines/agent.yaml:4: warning: extends ../runtimes/go-{go}.yaml") {
		t.Errorf("validate --strict: %q; want the note on line 4 as a warning (advisory)", out)
	}
	// With the run's command, validate picks the layer as the run does.
	code, out, errOut = run(t, "baseline", "validate", "baselines/agent.yaml", "--", self)
	if code != ExitOK || strings.Contains(out, "{go}") {
		t.Errorf("validate -- the agent's binary: code %d out %q err %q; want 0 and no note", code, out, errOut)
	}
	code, out, _ = run(t, "baseline", "validate", "baselines/agent.yaml", "--", "/bin/true")
	if code != ExitUsage || !strings.Contains(out, "the command gives no {go}") {
		t.Errorf("validate -- a command that starts no Go: code %d out %q; want 2 naming {go}", code, out)
	}
	code, out, errOut = run(t, "baseline", "diff", "--base", "HEAD", "baselines", "--", self)
	if code != ExitViolation || !strings.Contains(out, goLayer) || !strings.Contains(out, "socket(AF_INET)") {
		t.Errorf("diff with the agent's binary: code %d out %q err %q; want 1 naming %s socket(AF_INET)", code, out, errOut, goLayer)
	}
	code, _, errOut = run(t, "baseline", "diff", "--base", "HEAD", "baselines")
	if code != ExitInconclusive || !strings.Contains(errOut, "{go}") {
		t.Errorf("diff without the command: code %d err %q; want 3 naming {go}", code, errOut)
	}
}

// The run's --dir holds a pyenv version file naming another CPython than
// the directory the diff runs in: the run's command, found through
// pyenv's shim from that directory, picks the layer.
func TestBaselineDiffBasePyenvVersionFile(t *testing.T) {
	home, _ := os.UserHomeDir()
	root := filepath.Join(home, ".pyenv")
	shim := filepath.Join(root, "shims", "python3")
	pythons, _ := filepath.Glob(filepath.Join(root, "versions", "3.*", "bin", "python3"))
	byMinor := map[string]string{} // major.minor -> pyenv version name
	for _, p := range pythons {
		if rt, ok := envprobe.Identify(p); ok && rt.Name == "python" {
			byMinor[majorMinor(rt.Version)] = filepath.Base(filepath.Dir(filepath.Dir(p)))
		}
	}
	var here, there string
	for mm := range byMinor {
		if here == "" {
			here = mm
		} else if there == "" && mm != here {
			there = mm
		}
	}
	if _, err := os.Stat(shim); err != nil || there == "" {
		testutil.Unavailable(t, "pyenv", "no pyenv with two CPython 3 versions in "+root)
	}
	t.Setenv("PATH", filepath.Join(root, "shims")+":/usr/bin:/bin")
	t.Setenv("PYENV_VERSION", "")
	os.Unsetenv("PYENV_VERSION")
	layer := "version: 1\nsyscalls:\n  x86_64:\n    - read\n"
	runLayer := "runtimes/python-" + there + ".yaml"
	widenRepoFrom(t, map[string]string{
		"baselines/agent.yaml":              layeredAgent,
		"runtimes/python-" + here + ".yaml": layer,
		runLayer:                            layer,
		".python-version":                   byMinor[here] + "\n",
		"agent/.python-version":             byMinor[there] + "\n",
		"agent/main.py":                     "print('hello')\n",
	}, map[string]string{runLayer: layer + "    - socket(AF_INET): calls home\n"})
	code, out, errOut := run(t, "baseline", "diff", "--base", "HEAD", "--dir", "agent", "baselines", "--", "python3", "main.py")
	if code != ExitViolation || !strings.Contains(out, runLayer) {
		t.Errorf("--dir agent -- python3 main.py: code %d out %q err %q; want 1 naming %s", code, out, errOut, runLayer)
	}
	// From the diff's own directory the same command picks the other
	// layer, which did not widen: the run's --dir decides.
	if code, out, errOut := run(t, "baseline", "diff", "--base", "HEAD", "baselines", "--", "python3", "main.py"); code != ExitOK {
		t.Errorf("-- python3 main.py from the top: code %d out %q err %q; want 0 (its layer did not widen)", code, out, errOut)
	}
	if code, out, _ := run(t, "baseline", "diff", "--base", "HEAD", "baselines"); code != ExitInconclusive || strings.Contains(out, "no widening") {
		t.Errorf("no command: code %d out %q; want 3", code, out)
	}
	// A pull request that moves the agent to the other version changes
	// the layer its run loads: the diff names the version file, and the
	// widening it found (that layer's) still exits 1: it outranks 3.
	writeTestFile(t, ".python-version", byMinor[there]+"\n")
	code, out, errOut = run(t, "baseline", "diff", "--base", "HEAD", "baselines", "--", "python3", "main.py")
	if code != ExitViolation || !strings.Contains(out, runLayer) || !strings.Contains(errOut, ".python-version: the pull request changes pyenv's version file") {
		t.Errorf("a version file changed: code %d out %q err %q; want 1 listing %s, naming .python-version", code, out, errOut, runLayer)
	}
}

// A pull request that changes what picks the layer (the agent's "#!"
// line) changes what the run loads without touching a baseline: the
// base's run loaded another layer, which the diff cannot compare by
// files. It says so (exit 3); an edit below the "#!" line is no such
// change.
func TestBaselineDiffBaseInterpreterChanged(t *testing.T) {
	pathPython, other, v := otherPython(t)
	rt, _ := envprobe.Identify(pathPython)
	layer := "version: 1\nsyscalls:\n  x86_64:\n    - read\n"
	base := map[string]string{
		"baselines/agent.yaml":                                layeredAgent,
		"runtimes/python-" + majorMinor(rt.Version) + ".yaml": layer,
		"runtimes/python-" + v + ".yaml":                      layer + "    - socket(AF_INET): another agent's\n",
		"agent.py":                                            "#!" + pathPython + "\nprint('hello')\n",
	}
	dir := widenRepoFrom(t, base, map[string]string{"agent.py": "#!" + pathPython + "\nprint('hello, world')\n"})
	if err := os.Chmod(filepath.Join(dir, "agent.py"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "baseline", "diff", "--base", "HEAD", "baselines", "--", "./agent.py"); code != ExitOK {
		t.Errorf("an edit below the #! line: code %d out %q err %q; want 0", code, out, errOut)
	}
	writeTestFile(t, filepath.Join(dir, "agent.py"), "#!"+other+"\nprint('hello')\n")
	code, out, errOut := run(t, "baseline", "diff", "--base", "HEAD", "baselines", "--", "./agent.py")
	if code != ExitInconclusive || strings.Contains(out, "no widening") || !strings.Contains(errOut, `agent.py: the pull request changes its "#!" line`) {
		t.Errorf("a new #! line: code %d out %q err %q; want 3 naming agent.py's #! line", code, out, errOut)
	}
}
