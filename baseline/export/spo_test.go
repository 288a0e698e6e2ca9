package export

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/sysgate/sysgate/baseline"
)

var spoCases = []struct {
	golden, baseline string
	opts             SPOOptions
}{
	{"spo/two-arch.yaml", "testdata/oci/two-arch.yaml", SPOOptions{Name: SPOName("Two_Arch.demo"), Namespace: "agents"}},
	{"spo/python-readonly-kill.yaml", "testdata/agents/python-readonly.yaml", SPOOptions{Name: "python-readonly", Default: baseline.ActionKill}},
}

func exportSPOCase(t *testing.T, path string, opts SPOOptions) (*SPOProfile, []byte) {
	t.Helper()
	p, err := baseline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := buildSPO(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ExportSPO(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return prof, out
}

// The export is golden, and decodes back into the resource's structs with
// unknown fields refused, to the same values (the reasons are comments).
func TestExportSPO(t *testing.T) {
	for _, c := range spoCases {
		t.Run(c.golden, func(t *testing.T) {
			prof, out := exportSPOCase(t, c.baseline, c.opts)
			golden(t, c.golden, out)
			var back SPOProfile
			dec := yaml.NewDecoder(bytes.NewReader(out))
			dec.KnownFields(true)
			if err := dec.Decode(&back); err != nil {
				t.Fatalf("does not decode as a SeccompProfile: %v", err)
			}
			for i := range prof.Spec.Syscalls {
				prof.Spec.Syscalls[i].Comment = ""
			}
			if !reflect.DeepEqual(&back, prof) {
				t.Errorf("decoded %+v\nbuilt   %+v", back, *prof)
			}
		})
	}
}

// The field names and enum values of the SeccompProfile CRD, written out
// here apart from the structs (from kubernetes-sigs/security-profiles-
// operator api/seccompprofile/v1beta1/seccompprofile_types.go), so a
// renamed tag fails the test.
var spoSchema = map[string][]string{
	"":         {"apiVersion", "kind", "metadata", "spec"},
	"metadata": {"name", "namespace", "annotations"},
	"spec":     {"baseProfileName", "defaultAction", "architectures", "listenerPath", "listenerMetadata", "syscalls", "flags", "disabled"},
	"syscall":  {"names", "action", "errnoRet", "args"},
	"arg":      {"index", "value", "valueTwo", "op"},
}

var (
	spoActions = []string{"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP", "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY"}
	spoArches  = []string{"SCMP_ARCH_NATIVE", "SCMP_ARCH_X86", "SCMP_ARCH_X86_64", "SCMP_ARCH_X32", "SCMP_ARCH_ARM", "SCMP_ARCH_AARCH64", "SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL", "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC", "SCMP_ARCH_PPC64", "SCMP_ARCH_PPC64LE", "SCMP_ARCH_S390", "SCMP_ARCH_S390X", "SCMP_ARCH_PARISC", "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64"}
	spoOps     = []string{"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"}
)

func TestExportSPOFieldNames(t *testing.T) {
	for _, c := range spoCases {
		_, out := exportSPOCase(t, c.baseline, c.opts)
		var doc map[string]any
		if err := yaml.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		keys := func(where string, m any) map[string]any {
			mm, ok := m.(map[string]any)
			if !ok {
				t.Fatalf("%s: %T, want a mapping", where, m)
			}
			for k := range mm {
				if !slices.Contains(spoSchema[where], k) {
					t.Errorf("%s: %s has %q, not a SeccompProfile field", c.golden, where, k)
				}
			}
			return mm
		}
		top := keys("", doc)
		if top["apiVersion"] != "security-profiles-operator.x-k8s.io/v1beta1" || top["kind"] != "SeccompProfile" {
			t.Errorf("%s: apiVersion %v kind %v", c.golden, top["apiVersion"], top["kind"])
		}
		keys("metadata", top["metadata"])
		spec := keys("spec", top["spec"])
		if !slices.Contains(spoActions, spec["defaultAction"].(string)) {
			t.Errorf("defaultAction %v", spec["defaultAction"])
		}
		for _, a := range spec["architectures"].([]any) {
			if !slices.Contains(spoArches, a.(string)) {
				t.Errorf("architecture %v", a)
			}
		}
		for _, r := range spec["syscalls"].([]any) {
			rule := keys("syscall", r)
			if !slices.Contains(spoActions, rule["action"].(string)) {
				t.Errorf("action %v", rule["action"])
			}
			args, _ := rule["args"].([]any)
			if len(args) > 6 {
				t.Errorf("%d args, SPO allows 6", len(args))
			}
			for _, a := range args {
				if op := keys("arg", a)["op"]; !slices.Contains(spoOps, op.(string)) {
					t.Errorf("op %v", op)
				}
			}
		}
	}
}

// SPO has no per-arch rules: a syscall any arch allows is in the union,
// and the annotation names what only some arches allow; the reasons
// are comments above their rules.
func TestExportSPOUnionAndReasons(t *testing.T) {
	prof, out := exportSPOCase(t, "testdata/oci/two-arch.yaml", SPOOptions{Name: "demo"})
	var all []string
	for _, r := range prof.Spec.Syscalls {
		all = append(all, r.Names...)
	}
	for _, want := range []string{"open", "poll", "ppoll", "unshare", "socket", "rt_sigreturn"} {
		if !slices.Contains(all, want) {
			t.Errorf("%s missing from the union", want)
		}
	}
	if got, want := prof.Metadata.Annotations[SPOAnnotationArchOnly], "aarch64: ppoll; x86_64: open, poll, socket(AF_INET), unshare"; got != want {
		t.Errorf("arch-only annotation %q, want %q", got, want)
	}
	if got := prof.Metadata.Annotations[SPOAnnotationBaselines]; got != "testdata/oci/two-arch.yaml" {
		t.Errorf("baselines annotation %q", got)
	}
	if !slices.Equal(prof.Spec.Architectures, []string{"SCMP_ARCH_AARCH64", "SCMP_ARCH_X86_64"}) {
		t.Errorf("architectures %v", prof.Spec.Architectures)
	}
	for _, want := range []string{
		"# bubblewrap-style sandbox of the tool runner: reviewed in #12\n    - names:\n        - unshare\n",
		"# group error-paths: expected on error paths, not seen in every run\n    - names:\n        - exit_group\n        - rt_sigreturn\n",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("export lacks %q:\n%s", want, out)
		}
	}
}

func TestSPOName(t *testing.T) {
	for in, want := range map[string]string{
		"Two_Arch.demo":          "two-arch.demo",
		"python-readonly":        "python-readonly",
		"  My Agent!! v2 ":       "my-agent-v2",
		"..a..b.":                "a.b",
		"-x-":                    "x",
		"___":                    "",
		strings.Repeat("a", 300): strings.Repeat("a", 253),
	} {
		if got := SPOName(in); got != want {
			t.Errorf("SPOName(%q) = %q, want %q", in, got, want)
		}
	}
	p, err := baseline.Load("testdata/oci/two-arch.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []SPOOptions{{}, {Name: "Demo"}, {Name: "a..b"}, {Name: "demo", Namespace: "a.b"}, {Name: "demo", Namespace: strings.Repeat("n", 64)}} {
		if _, err := buildSPO(p, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := buildSPO(p, SPOOptions{Name: "Demo"}); err == nil || !strings.Contains(err.Error(), `e.g. "demo"`) {
		t.Errorf("a bad name's error suggests none: %v", err)
	}
}
