package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/golden"
	"github.com/sysgate/sysgate/internal/testutil"
)

const (
	profilesTD    = "../../../baseline/testdata/profiles/"
	dockerDefault = profilesTD + "docker-default.json"
	permissive    = profilesTD + "permissive.json"
	compareTD     = "testdata/compare/"
)

func TestCompareHelp(t *testing.T) {
	code, stdout, stderr := run(t, "compare", "-h")
	if code != ExitOK {
		t.Errorf("compare -h: code %d", code)
	}
	golden.Check(t, filepath.Join("testdata", "help", "compare.out"), []byte(stdout+stderr))
}

// compareJSON is the part of compare's JSON the tests read.
type compareJSON struct {
	Verdict string   `json:"verdict"`
	Input   []string `json:"input"`
	Caps    []string `json:"caps"`
	Arches  []struct {
		Arch   string `json:"arch"`
		Denied []struct {
			Syscall     string   `json:"syscall"`
			Errno       string   `json:"errno"`
			AllowedWith []string `json:"allowed_with"`
			File        string   `json:"file"`
			Line        int      `json:"line"`
			Count       uint64   `json:"count"`
		} `json:"denied"`
		Conditional []struct {
			Syscall string `json:"syscall"`
		} `json:"conditional"`
		Unused []string `json:"unused"`
	} `json:"arches"`
	UnusedArches []string `json:"unused_arches"`
}

func decodeCompare(t *testing.T, stdout string) compareJSON {
	t.Helper()
	var r compareJSON
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("compare --format json: %v\n%s", err, stdout)
	}
	return r
}

// The text report on a baseline with something of every kind: denied
// (caps), conditional (kernel, an argument-blind entry), an i386 section
// and the x32 ABI the profile lets through unused.
func TestCompareReport(t *testing.T) {
	for _, c := range []struct {
		golden string
		code   int
		args   []string
	}{
		{"docker-default.out", ExitViolation, nil},
		{"docker-default-admin.out", ExitInconclusive, []string{"--caps", "sys_admin", "--kernel", "6.18.0-1-amd64"}},
		{"permissive.out", ExitOK, []string{"--profile", permissive}},
		{"permissive.json", ExitOK, []string{"--profile", permissive, "--format", "json"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			args := append([]string{"compare", "--profile", dockerDefault, "-b", compareTD + "agent.yaml"}, c.args...)
			code, stdout, stderr := run(t, args...)
			if code != c.code || stderr != "" {
				t.Errorf("code %d, want %d; stderr %q", code, c.code, stderr)
			}
			golden.Check(t, compareTD+c.golden, []byte(stdout))
		})
	}
	code, stdout, _ := run(t, "compare", "--profile", dockerDefault, "-b", compareTD+"agent.yaml", "--verbose")
	if code != ExitViolation || !strings.Contains(stdout, "waitid, write, writev\n") || strings.Contains(stdout, "--verbose lists all") {
		t.Errorf("--verbose: code %d, want every unused syscall listed\n%s", code, stdout)
	}
}

// A committed suite baseline: the Python agent's isolate scenario unshares
// (CLONE_FILES), which Docker's default profile allows only a container
// keeping CAP_SYS_ADMIN.
func TestCompareSuiteBaseline(t *testing.T) {
	isolate := "../../../suites/baselines/python/isolate.yaml"
	code, stdout, stderr := run(t, "compare", "--profile", dockerDefault, "-b", isolate)
	if code != ExitViolation || !strings.Contains(stdout, isolate+":") || !strings.Contains(stdout, "x86_64 unshare(none): denied by the default action (SCMP_ACT_ERRNO, EPERM); the profile allows it with CAP_SYS_ADMIN [denied]") ||
		!strings.Contains(stdout, "DENIED: the agent needs 1 syscall the profile denies") {
		t.Fatalf("code %d, want 1 naming unshare(none)\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = run(t, "compare", "--profile", dockerDefault, "-b", isolate, "--format", "json")
	r := decodeCompare(t, stdout)
	if code != ExitViolation || r.Verdict != "denied" || len(r.Arches) != 1 || len(r.Arches[0].Denied) != 1 {
		t.Fatalf("json: code %d %+v", code, r)
	}
	d := r.Arches[0].Denied[0]
	if d.Syscall != "unshare(none)" || d.File != isolate || d.Line == 0 || d.Errno != "EPERM" || !slices.Equal(d.AllowedWith, []string{"CAP_SYS_ADMIN"}) {
		t.Errorf("json: denied %+v", d)
	}
	if !slices.Equal(r.UnusedArches, []string{"i386", "x32"}) || !slices.Contains(r.Arches[0].Unused, "accept4") {
		t.Errorf("json: unused arches %v, unused %d", r.UnusedArches, len(r.Arches[0].Unused))
	}
	if code, stdout, _ := run(t, "compare", "--profile", dockerDefault, "-b", isolate, "--caps", "CAP_SYS_ADMIN"); code != ExitOK || !strings.Contains(stdout, "ALLOWED: the profile allows all") {
		t.Errorf("--caps CAP_SYS_ADMIN: code %d\n%s", code, stdout)
	}
	if code, stdout, _ := run(t, "compare", "--profile", permissive, "-b", isolate); code != ExitOK {
		t.Errorf("permissive: code %d\n%s", code, stdout)
	}
}

func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	malformed := write("malformed.json", "{\n  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n  \"syscalls\": [\n    {\"names\": [\"read\"] \"action\": \"SCMP_ACT_ALLOW\"}\n  ]\n}\n")
	badArch := write("arch.json", "{\n  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n  \"architectures\": [\"SCMP_ARCH_AMD64\"]\n}\n")
	empty := write("empty.json", `{"agent": "a", "runs": 1, "syscalls": {}}`)
	agent := compareTD + "agent.yaml"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no profile", []string{"-b", agent}, "missing --profile FILE"},
		{"no agent", []string{"--profile", dockerDefault}, "missing -b BASELINE or --observation FILE"},
		{"both", []string{"--profile", dockerDefault, "-b", agent, "--observation", empty}, "not both"},
		{"argument", []string{"--profile", dockerDefault, agent}, `unexpected argument "` + agent + `"`},
		{"format", []string{"--profile", dockerDefault, "-b", agent, "--format", "sarif"}, `--format "sarif"`},
		{"malformed", []string{"--profile", malformed, "-b", agent}, malformed + ":4:24: JSON: invalid character '\"' after object key:value pair [profile]"},
		{"unknown arch", []string{"--profile", badArch, "-b", agent}, badArch + `:3: architectures[0]: unknown architecture "SCMP_ARCH_AMD64"`},
		{"unreadable", []string{"--profile", filepath.Join(dir, "missing.json"), "-b", agent}, "missing.json: read: no such file or directory [profile]"},
		{"directory", []string{"--profile", dir, "-b", agent}, "a directory, want a file"},
		{"caps", []string{"--profile", dockerDefault, "-b", agent, "--caps", "CAP_SYS_ADMN"}, `unknown capability "CAP_SYS_ADMN"`},
		{"kernel", []string{"--profile", dockerDefault, "-b", agent, "--kernel", "latest"}, `kernel "latest"`},
		{"bad baseline", []string{"--profile", dockerDefault, "-b", td + "invalid.yaml"}, "invalid.yaml:"},
		{"empty observation", []string{"--profile", dockerDefault, "--observation", empty}, "lists no syscalls"},
		{"bad observation", []string{"--profile", dockerDefault, "--observation", badArch}, "read observation"},
	} {
		code, stdout, stderr := run(t, append([]string{"compare"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%s: code %d, want %d with %q\n%s%s", c.name, code, ExitUsage, c.want, stdout, stderr)
		}
	}
	unknownField := write("field.json", `{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86"], "comment": "ours"}`)
	code, _, stderr := run(t, "compare", "--profile", unknownField, "-b", agent)
	if code != ExitOK || !strings.Contains(stderr, `sysgate: warning: `+unknownField+`: unknown field "comment": ignored, as runtimes do`) {
		t.Errorf("unknown field: code %d, want 0 and a warning\n%s", code, stderr)
	}
}

// The done-when, with the real kernel: a Python agent recorded by
// sysgate unshares a UTS namespace, which Docker's default profile denies
// an unprivileged container; compare names it and exits 1, and passes the
// same observation under a profile that allows everything it needs.
func TestComparePythonAgentObservation(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	dir := t.TempDir()
	obs := filepath.Join(dir, "agent.json")
	agent := "import ctypes, socket; socket.socket(socket.AF_UNIX).close(); ctypes.CDLL(None, use_errno=True).unshare(0x04000000)"
	code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", filepath.Join(dir, "agent.yaml"), "--observation", obs, "--", py, "-I", "-S", "-c", agent)
	if code != ExitOK {
		t.Fatalf("record: code %d\n%s", code, stderr)
	}
	code, stdout, stderr := run(t, "compare", "--profile", dockerDefault, "--observation", obs)
	want := obs + ": x86_64 unshare(CLONE_NEWUTS) (x1): denied by the default action (SCMP_ACT_ERRNO, EPERM); the profile allows it with CAP_SYS_ADMIN [denied]"
	if code != ExitViolation || !strings.Contains(stdout, want) || !strings.Contains(stdout, "DENIED: the agent needs 1 syscall the profile denies") {
		t.Fatalf("docker default: code %d, want 1 with\n%s\ngot:\n%s%s", code, want, stdout, stderr)
	}
	code, stdout, _ = run(t, "compare", "--profile", dockerDefault, "--observation", obs, "--format", "json")
	r := decodeCompare(t, stdout)
	if code != ExitViolation || r.Verdict != "denied" || len(r.Arches) != 1 || len(r.Arches[0].Denied) != 1 ||
		r.Arches[0].Denied[0].Syscall != "unshare(CLONE_NEWUTS)" || r.Arches[0].Denied[0].Count != 1 || len(r.Arches[0].Conditional) != 0 {
		t.Errorf("json: code %d %+v", code, r)
	}
	if code, stdout, stderr := run(t, "compare", "--profile", permissive, "--observation", obs); code != ExitOK || !strings.Contains(stdout, "ALLOWED: the profile allows all") {
		t.Errorf("permissive: code %d, want 0\n%s%s", code, stdout, stderr)
	}
}
