package export

import (
	"bytes"
	"slices"
	"sort"
	"testing"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/scmp"
)

// moby's LoadProfile is built for Linux only: so is this file.

func resolvedNames(rules []specs.LinuxSyscall) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Names...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// moby's LoadProfile (what dockerd runs on a --security-opt seccomp=FILE)
// resolves the export for this machine's arch: it lists exactly the
// baseline's syscalls of that arch, no more (the other arch's own
// syscalls) and no fewer, and the class rules keep their arguments.
func TestExportOCILoadProfile(t *testing.T) {
	native := scmp.Native()
	p, out := exportCase(t, "testdata/oci/two-arch.yaml", OCIOptions{})
	if !slices.Contains(p.Arches(), native) {
		t.Fatalf("testdata/oci/two-arch.yaml has no %s section", native)
	}
	resolved, err := mobyseccomp.LoadProfile(string(out), &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []specs.Arch{ociArches[native].spec}; !slices.Equal(resolved.Architectures, want) {
		t.Errorf("architectures %v, want %v", resolved.Architectures, want)
	}
	var want, wantClassed []string
	for _, e := range p.Entries(native) {
		sys, class := argclass.SplitKey(e.Name)
		want = append(want, sys)
		if class != "" && !p.Allows(native, sys) {
			wantClassed = append(wantClassed, sys)
		}
	}
	sort.Strings(want)
	want = slices.Compact(want)
	wantClassed = slices.Compact(wantClassed)
	if got := resolvedNames(resolved.Syscalls); !slices.Equal(got, want) {
		t.Errorf("resolved for %s:\n got  %v\n want %v", native, got, want)
	}
	var classed []specs.LinuxSyscall
	for _, r := range resolved.Syscalls {
		if len(r.Args) > 0 {
			classed = append(classed, r)
		}
	}
	if got := resolvedNames(classed); !slices.Equal(got, wantClassed) {
		t.Errorf("rules with args for %s: %v, want %v", native, got, wantClassed)
	}
	// The other arch's own syscalls are in the file, under includes.
	other := map[scmp.Arch]string{scmp.X86_64: "ppoll", scmp.AArch64: "poll"}[native]
	if other != "" && !bytes.Contains(out, []byte(`"`+other+`"`)) {
		t.Errorf("%s (the other arch's) missing from the export", other)
	}
}
