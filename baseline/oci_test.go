package baseline

import (
	"bytes"
	"encoding/json"
	"testing"

	goldenfile "github.com/sysgate/sysgate/internal/golden"
)

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, "testdata/"+name, got)
}

// The runtime spec's LinuxSeccomp as runc, crun, containerd and Podman
// decode it (opencontainers/runtime-spec specs-go/config.go), written out
// here independently of OCIProfile so a renamed field fails the test.
type specSeccomp struct {
	DefaultAction    string        `json:"defaultAction"`
	DefaultErrnoRet  *uint         `json:"defaultErrnoRet,omitempty"`
	Architectures    []string      `json:"architectures,omitempty"`
	Flags            []string      `json:"flags,omitempty"`
	ListenerPath     string        `json:"listenerPath,omitempty"`
	ListenerMetadata string        `json:"listenerMetadata,omitempty"`
	Syscalls         []specSyscall `json:"syscalls,omitempty"`
}

type specSyscall struct {
	Names    []string `json:"names"`
	Action   string   `json:"action"`
	ErrnoRet *uint    `json:"errnoRet,omitempty"`
	Args     []struct {
		Index    uint   `json:"index"`
		Value    uint64 `json:"value"`
		ValueTwo uint64 `json:"valueTwo,omitempty"`
		Op       string `json:"op"`
	} `json:"args,omitempty"`
}

func TestExportOCI(t *testing.T) {
	p, err := Load("testdata/agents/python-readonly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		golden string
		opts   OCIOptions
		action string
		errno  uint
	}{
		{"oci/python-readonly.json", OCIOptions{}, "SCMP_ACT_ERRNO", 1},
		{"oci/python-readonly-log.json", OCIOptions{Default: ActionLog}, "SCMP_ACT_LOG", 0},
		{"oci/python-readonly-kill.json", OCIOptions{Default: ActionKill}, "SCMP_ACT_KILL_PROCESS", 0},
	}
	for _, c := range cases {
		out, err := ExportOCI(p, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, c.golden, out)

		var spec specSeccomp
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			t.Fatalf("%s does not decode as a runtime-spec LinuxSeccomp: %v", c.golden, err)
		}
		if spec.DefaultAction != c.action {
			t.Errorf("defaultAction %q, want %q", spec.DefaultAction, c.action)
		}
		if (spec.DefaultErrnoRet != nil) != (c.errno != 0) || (spec.DefaultErrnoRet != nil && *spec.DefaultErrnoRet != c.errno) {
			t.Errorf("defaultErrnoRet %v, want %d", spec.DefaultErrnoRet, c.errno)
		}
		if len(spec.Architectures) != 2 || spec.Architectures[0] != "SCMP_ARCH_AARCH64" || spec.Architectures[1] != "SCMP_ARCH_X86_64" {
			t.Errorf("architectures %v", spec.Architectures)
		}
		if len(spec.Syscalls) != 1 || spec.Syscalls[0].Action != "SCMP_ACT_ALLOW" {
			t.Fatalf("syscalls %+v", spec.Syscalls)
		}
		names := map[string]bool{}
		for _, n := range spec.Syscalls[0].Names {
			names[n] = true
		}
		// Entries of the agent's file, its base, and its groups all allow.
		for _, want := range []string{"read", "connect", "unshare", "rt_sigreturn", "poll", "openat"} {
			if !names[want] {
				t.Errorf("%s missing from the export", want)
			}
		}
		if len(names) != len(spec.Syscalls[0].Names) {
			t.Errorf("duplicate names in the export")
		}
	}
}
