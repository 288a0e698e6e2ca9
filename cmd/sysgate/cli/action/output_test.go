package action

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteOutput(t *testing.T) {
	var b bytes.Buffer
	if err := WriteOutput(&b, "verdict", "clean"); err != nil || b.String() != "verdict=clean\n" {
		t.Errorf("one line: %q, %v", b.String(), err)
	}
	// A value with a line break takes the delimiter form, so it can
	// neither end early nor add an output of its own.
	b.Reset()
	value := "a.yaml:1: x86_64 socket\nverdict=clean"
	if err := WriteOutput(&b, "entries", value); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	name, delim, ok := strings.Cut(lines[0], "<<")
	if !ok || name != "entries" || !strings.HasPrefix(delim, "ghadelimiter_") || len(lines) != 4 ||
		lines[3] != delim || strings.Join(lines[1:3], "\n") != value {
		t.Errorf("multi-line output:\n%s", b.String())
	}
}

func TestArtifactName(t *testing.T) {
	in := ArtifactInputs{Command: "python3 agent.py", Baselines: "agent.yaml", Mode: "check", Dir: "/w"}
	a := ArtifactName("", "", "", in)
	if a != "sysgate-job-Linux-X64-"+a[len(a)-8:] || len(a) != len("sysgate-job-Linux-X64-")+8 {
		t.Errorf("defaults: %q", a)
	}
	// The hash is the bash action's: sha256 of each input NUL-terminated
	// (printf '%s\0' ... | sha256sum), so names stay as they were.
	if got, want := ArtifactName("gate", "Linux", "ARM64", ArtifactInputs{}), "sysgate-gate-Linux-ARM64-af5570f5"; got != want {
		t.Errorf("empty inputs: %q, want %q", got, want)
	}
	other := in
	other.Dir = "/v"
	if ArtifactName("", "", "", other) == a {
		t.Error("another working directory gave the same artifact name")
	}
}

func TestWideningEntries(t *testing.T) {
	diff := "agent.yaml widens the baseline of sample:\n" +
		"  agent.yaml:12: x86_64 socket(AF_INET) [risky: network]; reason: calls the model API\n" +
		"  agent.yaml:14: program /usr/bin/curl; review: who needs it\n" +
		"\n"
	want := "agent.yaml:12: x86_64 socket(AF_INET), agent.yaml:14: program /usr/bin/curl"
	if got := WideningEntries(diff); got != want {
		t.Errorf("WideningEntries = %q, want %q", got, want)
	}
	if got := WideningVerdict(""); !strings.Contains(got, "widens the baseline: see the annotations.") {
		t.Errorf("no entries: %q", got)
	}
}
