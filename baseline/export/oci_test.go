package export

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/sysgate/sysgate/baseline"
	goldenfile "github.com/sysgate/sysgate/internal/golden"
)

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, "testdata/"+name, got)
}

// ociCases are the exports the golden, round-trip and LoadProfile tests
// share: a baseline with extends and a group, and the two-arch one with
// reasons, a group and classes.
var ociCases = []struct {
	golden, baseline string
	opts             OCIOptions
	action           specs.LinuxSeccompAction
	errno            uint // 0: no defaultErrnoRet
}{
	{"oci/python-readonly.json", "testdata/agents/python-readonly.yaml", OCIOptions{}, specs.ActErrno, ErrnoEPERM},
	{"oci/python-readonly-log.json", "testdata/agents/python-readonly.yaml", OCIOptions{Default: baseline.ActionLog}, specs.ActLog, 0},
	{"oci/python-readonly-kill.json", "testdata/agents/python-readonly.yaml", OCIOptions{Default: baseline.ActionKill}, specs.ActKillProcess, 0},
	{"oci/two-arch.json", "testdata/oci/two-arch.yaml", OCIOptions{}, specs.ActErrno, ErrnoEPERM},
	{"oci/two-arch-enosys.json", "testdata/oci/two-arch.yaml", OCIOptions{Errno: ErrnoENOSYS}, specs.ActErrno, ErrnoENOSYS},
}

func exportCase(t *testing.T, path string, opts OCIOptions) (*baseline.Profile, []byte) {
	t.Helper()
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ExportOCI(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

// decodeMoby decodes an export into moby's Seccomp, refusing unknown
// fields: what Docker and Podman read.
func decodeMoby(t *testing.T, data []byte) *mobyseccomp.Seccomp {
	t.Helper()
	var prof mobyseccomp.Seccomp
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&prof); err != nil {
		t.Fatalf("does not decode as moby's Seccomp: %v\n%s", err, data)
	}
	return &prof
}

func TestExportOCI(t *testing.T) {
	for _, c := range ociCases {
		t.Run(c.golden, func(t *testing.T) {
			_, out := exportCase(t, c.baseline, c.opts)
			golden(t, c.golden, out)
			prof := decodeMoby(t, out)
			if prof.DefaultAction != c.action {
				t.Errorf("defaultAction %q, want %q", prof.DefaultAction, c.action)
			}
			if (prof.DefaultErrnoRet != nil) != (c.errno != 0) || (prof.DefaultErrnoRet != nil && *prof.DefaultErrnoRet != c.errno) {
				t.Errorf("defaultErrnoRet %v, want %d", prof.DefaultErrnoRet, c.errno)
			}
			if len(prof.Architectures) != 0 {
				t.Errorf("architectures %v next to archMap: moby refuses both", prof.Architectures)
			}
			var arches []specs.Arch
			for _, a := range prof.ArchMap {
				arches = append(arches, a.Arch)
			}
			if !slices.Equal(arches, []specs.Arch{specs.ArchAARCH64, specs.ArchX86_64}) {
				t.Errorf("archMap %+v", prof.ArchMap)
			}
		})
	}
}

// The export round-trips through the runtime spec's types: decoded into
// moby's Seccomp (which embeds LinuxSeccomp and LinuxSyscall) and encoded
// again, it is the same bytes; and without moby's additions (archMap,
// includes, comment) every field is one of LinuxSeccomp's.
func TestExportOCIRoundTrip(t *testing.T) {
	for _, c := range ociCases {
		t.Run(c.golden, func(t *testing.T) {
			_, out := exportCase(t, c.baseline, c.opts)
			again, err := encodeOCI(decodeMoby(t, out))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, out) {
				t.Errorf("re-encoded export differs:\n%s\nwas:\n%s", again, out)
			}

			var generic map[string]any
			if err := json.Unmarshal(out, &generic); err != nil {
				t.Fatal(err)
			}
			delete(generic, "archMap")
			for _, r := range generic["syscalls"].([]any) {
				delete(r.(map[string]any), "comment")
				delete(r.(map[string]any), "includes")
			}
			plain, _ := json.Marshal(generic)
			var spec specs.LinuxSeccomp
			dec := json.NewDecoder(bytes.NewReader(plain))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&spec); err != nil {
				t.Fatalf("does not decode as a runtime-spec LinuxSeccomp: %v", err)
			}
			if spec.DefaultAction != c.action || len(spec.Syscalls) == 0 {
				t.Errorf("LinuxSeccomp %+v", spec)
			}
		})
	}
}

// names returns the sorted distinct syscall names of rules.
// Reasons survive as comments: an entry's reason on its own rule, a
// group's entries on one rule with the group's reason; an arch-only
// syscall is in a rule whose includes name its arch.
func TestExportOCIKeepsReasonsAndArches(t *testing.T) {
	_, out := exportCase(t, "testdata/oci/two-arch.yaml", OCIOptions{})
	prof := decodeMoby(t, out)
	find := func(name string) []*mobyseccomp.Syscall {
		var rs []*mobyseccomp.Syscall
		for _, r := range prof.Syscalls {
			if slices.Contains(r.Names, name) {
				rs = append(rs, r)
			}
		}
		return rs
	}
	arches := func(r *mobyseccomp.Syscall) string {
		if r.Includes == nil {
			return "all"
		}
		return strings.Join(r.Includes.Arches, ",")
	}
	for _, c := range []struct{ name, comment, arches string }{
		{"read", "", "all"},
		{"connect", "talks to the loopback server of the test", "all"},
		{"unshare", "bubblewrap-style sandbox of the tool runner: reviewed in #12", "amd64"},
		{"open", "", "amd64"},
		{"poll", "", "amd64"},
		{"ppoll", "", "arm64"},
		{"rt_sigreturn", "group error-paths: expected on error paths, not seen in every run", "all"},
	} {
		rs := find(c.name)
		if len(rs) != 1 || rs[0].Comment != c.comment || arches(rs[0]) != c.arches || len(rs[0].Args) != 0 {
			t.Errorf("%s: rules %s, want one with comment %q for %s", c.name, jsonOf(rs), c.comment, c.arches)
		}
	}
	if rs := find("exit_group"); len(rs) != 1 || !slices.Contains(rs[0].Names, "rt_sigreturn") {
		t.Errorf("the group's entries do not share a rule: %s", jsonOf(rs))
	}
	// socket: AF_UNIX on both arches, AF_INET on x86_64 with its reason;
	// each class is a rule per alternative of its other arguments.
	var unix, inet int
	for _, r := range find("socket") {
		switch {
		case len(r.Args) == 0 || r.Args[0].Index != 0 || r.Args[0].Op != specs.OpMaskedEqual:
			t.Errorf("socket rule without its class: %s", jsonOf(r))
		case r.Args[0].ValueTwo == 1 && arches(r) == "all" && r.Comment == "":
			unix++
		case r.Args[0].ValueTwo == 2 && arches(r) == "amd64" && r.Comment == "reaches the model API":
			inet++
		default:
			t.Errorf("socket rule: %s", jsonOf(r))
		}
	}
	if unix == 0 || inet == 0 {
		t.Errorf("socket rules: %d for AF_UNIX, %d for AF_INET", unix, inet)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A sub-arch is listed under its native arch in archMap, as in moby's
// default profile, and only when the baseline has its section.
func TestExportOCISubArches(t *testing.T) {
	path := writeFile(t, t.TempDir(), "a.yaml", "version: 1\nsyscalls:\n  i386:\n    - read\n    - socketcall\n  x86_64:\n    - read\n    - write\n")
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := buildOCI(p, OCIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []mobyseccomp.Architecture{{Arch: specs.ArchX86_64, SubArches: []specs.Arch{specs.ArchX86}}}
	if jsonOf(prof.ArchMap) != jsonOf(want) {
		t.Errorf("archMap %s, want %s", jsonOf(prof.ArchMap), jsonOf(want))
	}
	// One native arch: nothing needs includes; i386's socketcall joins the
	// family's rule. The other rules are the built-in scheduling group's.
	if len(prof.Syscalls) == 0 || prof.Syscalls[0].Includes != nil || !slices.Equal(prof.Syscalls[0].Names, []string{"read", "socketcall", "write"}) {
		t.Errorf("rules %s", jsonOf(prof.Syscalls))
	}
	for _, r := range prof.Syscalls[1:] {
		if r.Includes != nil || !strings.HasPrefix(r.Comment, "group scheduling;") {
			t.Errorf("rule %s: want the scheduling group's, for every arch", jsonOf(r))
		}
	}
}

func TestExportOCIErrno(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint
	}{{"EPERM", 1}, {"enosys", 38}, {"13", 13}, {"4095", 4095}} {
		if got, err := ParseErrno(c.in); err != nil || got != c.want {
			t.Errorf("ParseErrno(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "0", "4096", "EPRM", "-1"} {
		if _, err := ParseErrno(in); err == nil {
			t.Errorf("ParseErrno(%q): no error", in)
		}
	}
	p, err := baseline.Load("testdata/oci/two-arch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := buildOCI(p, OCIOptions{Default: baseline.ActionKill, Errno: ErrnoENOSYS}); err == nil {
		t.Errorf("an errno with the kill action: no error")
	}
	if _, err := buildOCI(p, OCIOptions{Errno: 4096}); err == nil {
		t.Errorf("errno 4096: no error")
	}
}
