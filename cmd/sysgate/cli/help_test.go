package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/golden"
)

// TestHelp pins what a new user reads first: the command list, a command
// group's verbs and a run verb's flags.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"sysgate.out", []string{"-h"}},
		{"baseline.out", []string{"baseline", "-h"}},
		{"report.out", []string{"report", "--help"}},
		{"check.out", []string{"check", "-h"}},
		{"doctor.out", []string{"doctor", "-h"}},
		{"export-oci.out", []string{"export", "oci", "-h"}},
		{"export-spo.out", []string{"export", "spo", "-h"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != ExitOK {
				t.Errorf("%v: code %d, want %d", tc.args, code, ExitOK)
			}
			golden.Check(t, filepath.Join("testdata", "help", tc.golden), []byte(stdout+stderr))
		})
	}
}

func TestCommandGroup(t *testing.T) {
	for _, group := range []string{"baseline", "report", "export", "audit"} {
		code, stdout, _ := run(t, group, "-h")
		if code != ExitOK || !strings.Contains(stdout, "\n  "+group+" ") {
			t.Errorf("%s -h: code %d stdout %q", group, code, stdout)
		}
	}
	if code, _, stderr := run(t, "baseline"); code != ExitUsage || !strings.Contains(stderr, "baseline validate") {
		t.Errorf("baseline without a verb: code %d stderr %q", code, stderr)
	}
	if code, _, stderr := run(t, "baseline", "frob"); code != ExitUsage || !strings.Contains(stderr, `unknown command "baseline frob"`) {
		t.Errorf("baseline frob: code %d stderr %q", code, stderr)
	}
}

// TestFlagUsageReadsAsSentences: the flag package turns a back-quoted word
// into the argument's name, so a back-quote meant as markup garbles the
// help ("-result sysgate report --result"). Every argument is named in
// capitals instead.
func TestFlagUsageReadsAsSentences(t *testing.T) {
	for path := range verbs {
		_, _, stderr := run(t, append(strings.Fields(path), "-h")...)
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, "`") {
				t.Errorf("%s -h: back-quote in %q", path, line)
			}
			if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[0], "-") && strings.ToUpper(f[1]) != f[1] &&
				f[1] != "duration" && f[1] != "string" && f[1] != "int" {
				t.Errorf("%s -h: argument named %q in %q", path, f[1], line)
			}
		}
	}
}

func TestGateAgentName(t *testing.T) {
	named := td + "agent.yaml" // agent: demo
	unnamed := td + "base.yaml"
	for _, tc := range []struct {
		flag      string
		baselines []string
		want      string
		warn      bool
	}{
		{"", []string{named}, "demo", false},
		{"", []string{unnamed, named}, "demo", false},
		{"", []string{unnamed}, "", false}, // the command's base name
		{"demo", []string{named}, "demo", false},
		{"other", []string{named}, "other", true},
		{"other", []string{unnamed}, "other", false},
	} {
		var c Command
		var stderr strings.Builder
		c.Stderr = &stderr
		got := c.gateAgent(tc.flag, tc.baselines)
		if got != tc.want || (stderr.Len() > 0) != tc.warn {
			t.Errorf("--agent %q %v: got %q, stderr %q; want %q, warning %v", tc.flag, tc.baselines, got, stderr.String(), tc.want, tc.warn)
		}
	}
}

// "sysgate help VERB" prints what "sysgate VERB -h" does, on stdout (it
// was asked for), for every verb and command group; an unknown word is a
// usage error.
func TestHelpVerb(t *testing.T) {
	for path := range verbs {
		words := strings.Fields(path)
		_, _, want := run(t, append(words, "-h")...)
		code, stdout, stderr := run(t, append([]string{"help"}, words...)...)
		if code != ExitOK || stdout != want || stderr != "" || !strings.Contains(stdout, "Usage: sysgate "+path+" ") {
			t.Errorf("help %s: code %d stdout %q stderr %q, want %q", path, code, stdout, stderr, want)
		}
	}
	code, stdout, _ := run(t, "help", "baseline")
	if code != ExitOK || !strings.Contains(stdout, "Usage: sysgate baseline COMMAND") {
		t.Errorf("help baseline: code %d stdout %q", code, stdout)
	}
	if code, _, stderr := run(t, "help", "chek"); code != ExitUsage || !strings.Contains(stderr, `unknown command "chek"`) {
		t.Errorf("help chek: code %d stderr %q", code, stderr)
	}
}

// "sysgate --version" is "sysgate version".
func TestVersionFlag(t *testing.T) {
	_, want, _ := run(t, "version")
	if code, stdout, _ := run(t, "--version"); code != ExitOK || stdout != want || !strings.HasPrefix(stdout, "sysgate ") {
		t.Errorf("--version: code %d stdout %q, want %q", code, stdout, want)
	}
}
