package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/golden"
	"github.com/sysgate/sysgate/internal/scmp"
)

func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "baseline", name), []byte(got))
}

const td = "testdata/baseline/"

func TestBaselineValidate(t *testing.T) {
	// Entries without a sha256 match by path, as before pins: a warning
	// that --strict lets pass.
	unpinned := td + "programs.yaml: warning: files are not gated: no file of this stack has a files section; record with --merge to add one [file-blind]\n" +
		td + "programs.yaml: warning: destinations are not gated: no file of this stack has a network section; record with --merge to add one [net-blind]\n" +
		td + "programs.yaml:8: warning: 3 program entries have no sha256 and match by path alone (the first here); record again to pin them [unpinned]\n"
	if code, out, errOut := run(t, "baseline", "validate", td+"programs.yaml"); code != ExitOK || out != unpinned || errOut != "" {
		t.Errorf("good file: code %d out %q err %q", code, out, errOut)
	}
	code, out, _ := run(t, "baseline", "validate", td+"invalid.yaml")
	if code != ExitUsage {
		t.Errorf("invalid file: code %d", code)
	}
	goldenFile(t, "validate-invalid.out", out)

	code, out, _ = run(t, "baseline", "validate", td+"unreviewed.yaml")
	if code != ExitOK || !strings.Contains(out, td+"unreviewed.yaml:8: warning: ") {
		t.Errorf("placeholder reason: code %d out %q", code, out)
	}
	if code, strictOut, _ := run(t, "baseline", "validate", "--strict", td+"unreviewed.yaml"); code != ExitUsage ||
		strictOut != strings.Replace(out, ": warning: ", ": ", -1) || strings.Contains(strictOut, "warning") {
		t.Errorf("--strict: code %d out %q, want the findings without warning:", code, strictOut)
	}
	code, out, _ = run(t, "baseline", "validate", "--format", "github", td+"invalid.yaml", td+"unreviewed.yaml")
	if code != ExitUsage {
		t.Errorf("--format github: code %d", code)
	}
	goldenFile(t, "validate-github.out", out)
	if code, _, errOut := run(t, "baseline", "validate", td+"absent.yaml"); code != ExitUsage || !strings.Contains(errOut, "absent.yaml") {
		t.Errorf("missing file: code %d err %q", code, errOut)
	}
	if code, _, _ := run(t, "baseline", "validate"); code != ExitUsage {
		t.Errorf("no files: code %d", code)
	}
}

// TestBaselineValidateProgramBlind: a stack without a programs section
// lets any program run; validate says so, and --strict fails on it, as on
// an argument-blind entry.
func TestBaselineValidateProgramBlind(t *testing.T) {
	code, out, errOut := run(t, "baseline", "validate", td+"agent.yaml", td+"base.yaml")
	fileBlind := ": warning: files are not gated: no file of this stack has a files section; record with --merge to add one [file-blind]\n"
	netBlind := ": warning: destinations are not gated: no file of this stack has a network section; record with --merge to add one [net-blind]\n"
	want := td + "agent.yaml: warning: programs are not gated: no file of this stack has a programs section; record with --merge to add one [program-blind]\n" +
		td + "agent.yaml" + fileBlind + td + "agent.yaml" + netBlind +
		td + "base.yaml: warning: programs are not gated: no file of this stack has a programs section; record with --merge to add one [program-blind]\n" +
		td + "base.yaml" + fileBlind + td + "base.yaml" + netBlind
	if code != ExitOK || out != want || errOut != "" {
		t.Errorf("program-blind stacks: code %d out\n%s\nerr %q", code, out, errOut)
	}
	if code, _, _ := run(t, "baseline", "validate", "--strict", td+"agent.yaml"); code != ExitUsage {
		t.Errorf("--strict: code %d", code)
	}
	// Gated for programs, blind for files: --strict fails on the files
	// alone.
	if code, out, _ := run(t, "baseline", "validate", "--strict", td+"programs.yaml"); code != ExitUsage || strings.Contains(out, "[program-blind]") || !strings.Contains(out, "[file-blind]") {
		t.Errorf("--strict, programs gated, files not: code %d\n%s", code, out)
	}
	// A programs (files, network) section in a base gates the agent's
	// stack too, even an empty one.
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "base.yaml"), "version: 1\nprograms: []\nfiles: {}\nnetwork: {}\n")
	writeTestFile(t, filepath.Join(dir, "a.yaml"), "version: 1\nagent: a\nextends: [base.yaml]\nsyscalls:\n  x86_64: [read]\n")
	if code, out, _ := run(t, "baseline", "validate", "--strict", filepath.Join(dir, "a.yaml")); code != ExitOK || out != "" {
		t.Errorf("programs, files and network gated by the base: code %d out %q", code, out)
	}
	// Gated for programs and files, blind for destinations: --strict
	// fails on the network alone, as on files.
	writeTestFile(t, filepath.Join(dir, "nonet.yaml"), "version: 1\nagent: a\nprograms: []\nfiles: {}\nsyscalls:\n  x86_64: [read]\n")
	code, out, _ = run(t, "baseline", "validate", "--strict", filepath.Join(dir, "nonet.yaml"))
	// What fails --strict reads as an error, not as the warning it is
	// without the flag.
	if code != ExitUsage || out != filepath.Join(dir, "nonet.yaml")+strings.Replace(netBlind, "warning: ", "", 1) {
		t.Errorf("--strict, network not gated: code %d out %q", code, out)
	}
	if code, _, _ := run(t, "baseline", "validate", filepath.Join(dir, "nonet.yaml")); code != ExitOK {
		t.Errorf("net-blind without --strict: code %d, want a warning only", code)
	}
}

// TestBaselineValidateProgramWritable: a listed program a user other
// than root can replace is a warning (a failure with --strict), pinned
// or not; a pinned one is not unpinned.
func TestBaselineValidateProgramWritable(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool.sh")
	writeTestFile(t, tool, "#!/bin/sh\n")
	if err := os.Chmod(tool, 0o777); err != nil {
		t.Fatal(err)
	}
	sum := strings.Repeat("a", 64)
	writeTestFile(t, filepath.Join(dir, "a.yaml"), "version: 1\nagent: a\nprograms:\n  - path: ./tool.sh\n    sha256: "+sum+"\nfiles: {}\nnetwork: {}\nsyscalls:\n  x86_64: [read]\n")
	code, out, _ := run(t, "baseline", "validate", filepath.Join(dir, "a.yaml"))
	// Who can write it depends on who runs the test (root or not).
	want := filepath.Join(dir, "a.yaml") + ":4: warning: program ./tool.sh (" + tool + ") can be replaced by the agent: the file is writable by "
	if code != ExitOK || !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "; its sha256 pins the content [program-writable]\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("writable program: code %d out\n%s\nwant\n%s...", code, out, want)
	}
	// Pinned, a replacement is caught at its exec: the agent's own script
	// is the common case, and --strict passes it.
	if code, _, _ := run(t, "baseline", "validate", "--strict", filepath.Join(dir, "a.yaml")); code != ExitOK {
		t.Errorf("--strict, pinned: code %d, want %d", code, ExitOK)
	}
	// Unpinned, nothing stops the agent replacing it: --strict fails.
	writeTestFile(t, filepath.Join(dir, "b.yaml"), "version: 1\nagent: b\nprograms:\n  - ./tool.sh\nfiles: {}\nnetwork: {}\nsyscalls:\n  x86_64: [read]\n")
	if code, out, _ := run(t, "baseline", "validate", "--strict", filepath.Join(dir, "b.yaml")); code != ExitUsage || !strings.Contains(out, "nothing pins its content") {
		t.Errorf("--strict, unpinned: code %d, want %d\n%s", code, ExitUsage, out)
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBaselineFmt(t *testing.T) {
	code, out, _ := run(t, "baseline", "fmt", td+"unformatted.yaml")
	if code != ExitOK {
		t.Fatalf("fmt: code %d", code)
	}
	goldenFile(t, "fmt-unformatted.out", out)

	dir := t.TempDir()
	path := filepath.Join(dir, "a.yaml")
	src, _ := os.ReadFile(td + "unformatted.yaml")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "baseline", "fmt", "-l", path, td+"agent.yaml"); code != ExitViolation || out != path+"\n" {
		t.Errorf("-l: code %d out %q", code, out)
	}
	if code, _, _ := run(t, "baseline", "fmt", "-w", path); code != ExitOK {
		t.Errorf("-w: code %d", code)
	}
	if got, _ := os.ReadFile(path); string(got) != out {
		t.Errorf("-w wrote something else than fmt prints:\n%s", got)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("-w changed the mode to %v", info.Mode().Perm())
	}
	if code, out, _ := run(t, "baseline", "fmt", "-l", path); code != ExitOK || out != "" {
		t.Errorf("-l after -w: code %d out %q", code, out)
	}
	commented := filepath.Join(dir, "commented.yaml")
	src = []byte("version: 1\nsyscalls: # the list\n  x86_64:\n    - read\n")
	if err := os.WriteFile(commented, src, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "baseline", "fmt", "-w", commented)
	if got, _ := os.ReadFile(commented); code != ExitUsage || string(got) != string(src) || !strings.Contains(errOut, "commented.yaml:2: warning: comment") {
		t.Errorf("fmt -w must not drop a comment: code %d stderr %q file %q", code, errOut, got)
	}
	if code, out, _ := run(t, "baseline", "fmt", td+"invalid.yaml"); code != ExitUsage || !strings.Contains(out, "invalid.yaml:7: unknown syscall") {
		t.Errorf("fmt of an invalid file: code %d out %q", code, out)
	}
}

func TestBaselineFmtPrograms(t *testing.T) {
	code, out, errOut := run(t, "baseline", "fmt", td+"unformatted-programs.yaml")
	if code != ExitOK || errOut != "" {
		t.Fatalf("fmt: code %d err %q", code, errOut)
	}
	goldenFile(t, "fmt-programs.out", out)
	if code, out, _ := run(t, "baseline", "fmt", "-l", td+"programs.yaml"); code != ExitOK || out != "" {
		t.Errorf("a formatted programs section: code %d out %q", code, out)
	}
	// Relative programs stay as written, whatever directory fmt runs in.
	path := filepath.Join(t.TempDir(), "a.yaml")
	src := "# sysgate baseline: reviewed in pull requests. Regenerate with `make baseline-update`.\n\nversion: 1\nprograms:\n  - ../agents/run.py\n  - /usr/bin/git\n"
	writeTestFile(t, path, src)
	if code, out, _ := run(t, "baseline", "fmt", path); code != ExitOK || out != src {
		t.Errorf("relative program: code %d out\n%s", code, out)
	}
}

func TestBaselineDiff(t *testing.T) {
	for _, c := range []struct{ golden, format, old, new string }{
		{"diff-baselines.txt", "text", "base.yaml", "agent.yaml"},
		{"diff-observation.md", "markdown", "agent.yaml", "run1.json"},
		{"diff-observation.txt", "text", "agent.yaml", "run1.json"},
		{"diff-programs.txt", "text", "programs.yaml", "programs-run.json"},
		{"diff-programs.md", "markdown", "programs.yaml", "programs-run.json"},
		{"diff-programs-baselines.txt", "text", "agent.yaml", "programs.yaml"},
		{"diff-programs-observations.txt", "text", "run2.json", "programs-run.json"},
		// A program an agent named with terminal escapes and markdown
		// (issue 32, item 7): shown escaped in both formats.
		{"diff-hostile.txt", "text", "programs.yaml", "hostile-run.json"},
		{"diff-hostile.md", "markdown", "programs.yaml", "hostile-run.json"},
	} {
		code, out, errOut := run(t, "baseline", "diff", "--format", c.format, td+c.old, td+c.new)
		if code != ExitViolation { // every pair differs: exit 1, as diff(1)
			t.Fatalf("%s: code %d %s", c.golden, code, errOut)
		}
		goldenFile(t, c.golden, out)
		markdownRaw := c.format == "markdown" && (strings.Contains(out, "<details>") || strings.Contains(out, "@octocat"))
		if strings.ContainsAny(out, "\x1b\x07") || markdownRaw {
			t.Errorf("%s shows an agent's name raw:\n%q", c.golden, out)
		}
	}
	if code, _, _ := run(t, "baseline", "diff", "--format", "html", td+"base.yaml", td+"agent.yaml"); code != ExitUsage {
		t.Errorf("unknown format: code %d", code)
	}
	if code, out, _ := run(t, "baseline", "diff", td+"invalid.yaml", td+"agent.yaml"); code != ExitUsage || !strings.Contains(out, "[syscall]") {
		t.Errorf("invalid OLD: code %d out %q", code, out)
	}
}

// TestJSONBaseline: a baseline written in JSON is read as the YAML it is
// (diff does not take it for an observation), and its syntax errors say
// JSON.
func TestJSONBaseline(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "base.json")
	src := `{"version": 1, "syscalls": {"x86_64": ["close", "exit_group", "read", "write"]}}`
	if err := os.WriteFile(good, []byte(src+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "baseline", "diff", td+"base.yaml", good); code != ExitOK || out != "0 new, 0 removed\n" {
		t.Errorf("diff with a JSON baseline: code %d out %q err %q", code, out, errOut)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(strings.TrimSuffix(src, "}")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "baseline", "validate", bad); code != ExitUsage || !strings.Contains(out, bad+":2: JSON: ") {
		t.Errorf("broken JSON baseline: code %d out %q", code, out)
	}
}

func TestBaselineMerge(t *testing.T) {
	out := filepath.Join(t.TempDir(), "merged.json")
	if code, _, errOut := run(t, "baseline", "merge", "-o", out, td+"run1.json", td+"run2.json"); code != ExitOK {
		t.Fatalf("merge: code %d %s", code, errOut)
	}
	o, err := baseline.ReadObservation(out)
	if err != nil {
		t.Fatal(err)
	}
	if o.Agent != "demo" || o.Runs != 3 || o.Count(scmp.X86_64, "read") != 15 || o.Count(scmp.AArch64, "openat") != 4 || o.Programs["/usr/bin/python3.13"] != 2 {
		t.Errorf("merged: %+v", o)
	}
	code, _, errOut := run(t, "baseline", "merge", "-o", out, td+"run1.json", td+"other-agent.json")
	if code != ExitUsage || !strings.Contains(errOut, "different agents") {
		t.Errorf("mixed agents: code %d err %q", code, errOut)
	}
	code, stdout, _ := run(t, "baseline", "merge", "--allow-mixed-agents", td+"run1.json", td+"other-agent.json")
	if code != ExitOK || !strings.Contains(stdout, `"agent": "demo,other"`) {
		t.Errorf("--allow-mixed-agents: code %d out %q", code, stdout)
	}
}

func TestExportOCI(t *testing.T) {
	code, out, _ := run(t, "export", "oci", "-b", td+"agent.yaml")
	if code != ExitOK {
		t.Fatalf("export: code %d", code)
	}
	goldenFile(t, "export-oci.json", out)
	path := filepath.Join(t.TempDir(), "profile.json")
	if code, _, _ := run(t, "export", "oci", "-b", td+"base.yaml", "-b", td+"agent.yaml", "--default-action", "kill", "-o", path); code != ExitOK {
		t.Fatalf("export -o: code %d", code)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte(`"defaultAction": "SCMP_ACT_KILL_PROCESS"`)) {
		t.Errorf("kill profile:\n%s", data)
	}
	if code, _, errOut := run(t, "export", "oci", "-b", td+"unreviewed.yaml"); code != ExitOK || !strings.Contains(errOut, "unreviewed.yaml:8: warning: unshare is risky") {
		t.Errorf("unreviewed export: code %d stderr %q", code, errOut)
	}
	if code, _, _ := run(t, "export", "oci", "-b", td+"agent.yaml", "--default-action", "trap"); code != ExitUsage {
		t.Errorf("bad action: code %d", code)
	}
	if code, out, _ := run(t, "export", "oci", "-b", td+"agent.yaml", "--errno", "ENOSYS"); code != ExitOK || !strings.Contains(out, `"defaultErrnoRet": 38,`) {
		t.Errorf("--errno ENOSYS: code %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"--errno", "EPRM"}, {"--errno", "0"}, {"--errno", "38", "--default-action", "kill"}} {
		if code, _, errOut := run(t, append([]string{"export", "oci", "-b", td + "agent.yaml"}, bad...)...); code != ExitUsage || !strings.Contains(errOut, "--errno") {
			t.Errorf("%v: code %d stderr %q", bad, code, errOut)
		}
	}
	if code, _, _ := run(t, "export", "oci"); code != ExitUsage {
		t.Errorf("no -b: code %d", code)
	}
}

// TestBaselineMergePrograms: shards' programs add up, and the merged
// observation records into a programs section beyond the base.
func TestBaselineMergePrograms(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "merged.json")
	if code, _, errOut := run(t, "baseline", "merge", "-o", out, td+"run2.json", td+"programs-run.json"); code != ExitOK {
		t.Fatalf("merge: code %d %s", code, errOut)
	}
	o, err := baseline.ReadObservation(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"/usr/bin/python3.13": 3, "/usr/bin/curl": 2, "/usr/lib/node_modules/npm/bin/npm-cli.js": 1, "/usr/bin/bash": 1}
	if !reflect.DeepEqual(o.Programs, want) {
		t.Errorf("merged programs: %v", o.Programs)
	}
	path := filepath.Join(dir, "demo.yaml")
	res, err := baseline.WriteRecorded(path, o, baseline.RecordOptions{Extends: []string{td + "programs.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	// python3.13 and the npm bin are the base's (the npm one through its
	// pattern); the shell and the downloader await a reviewed reason.
	// Only the second shard's run ran them: the lines say so.
	wantSection := "programs:\n  - path: /usr/bin/bash # seen in 1 of 3 record runs\n    reason: \"unreviewed: seen in record mode\"\n" +
		"  - path: /usr/bin/curl # seen in 1 of 3 record runs\n    reason: \"unreviewed: seen in record mode\"\nsyscalls:\n"
	if !strings.Contains(string(data), wantSection) || len(res.AddedPrograms) != 2 {
		t.Errorf("recorded from the merged observation:\n%s\nadded %+v", data, res.AddedPrograms)
	}
	if code, out, _ := run(t, "baseline", "validate", path); code != ExitOK || strings.Count(out, "[unreviewed]") != 2 {
		t.Errorf("validate of the recorded file: code %d out\n%s", code, out)
	}
}
