package harness

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/capability"
	"github.com/sysgate/sysgate/internal/kernel"
)

func TestKeptCapabilitiesResolveToFencedOnes(t *testing.T) {
	caps, names, err := keptCapabilities([]string{"sys_ptrace", "CAP_SYS_PTRACE", "BPF"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"CAP_BPF", "CAP_SYS_PTRACE"}) || len(caps) != 2 {
		t.Fatalf("kept %v %v; want CAP_BPF and CAP_SYS_PTRACE once each", caps, names)
	}
	mask, err := fencedMask(caps)
	if err != nil {
		t.Fatal(err)
	}
	if mask&(1<<19) != 0 || mask&(1<<21) == 0 {
		t.Fatalf("mask %#x: CAP_SYS_PTRACE must be kept, CAP_SYS_ADMIN dropped", mask)
	}
	for _, bad := range []string{"CHOWN", "DAC_OVERRIDE", "NO_SUCH_CAP"} {
		if _, _, err := keptCapabilities([]string{bad}); !errors.Is(err, ErrKeepCapability) {
			t.Errorf("keep %s: %v; want ErrKeepCapability (only fenced ones can be kept)", bad, err)
		}
	}
}

// The fence list's numbers and names agree with the kernel's table.
func TestFencedCapabilitiesNamedRight(t *testing.T) {
	for _, f := range FencedCapabilities {
		if got := capability.Name(f.Cap); got != f.Name {
			t.Errorf("capability %d is %s, listed as %s", f.Cap, got, f.Name)
		}
	}
}

// A run with a kept capability: the agent holds it, the Result names it;
// sysgate is non-dumpable once it has supervised a run.
func TestKeptCapabilityReachesAgentAndResult(t *testing.T) {
	var out strings.Builder
	r := mustRun(t, Agent{Command: []string{"/bin/sh", "-c", "grep ^CapBnd /proc/self/status"}, Stdout: &out},
		WithKeepCapabilities("SYS_PTRACE"))
	if !slices.Equal(r.KeptCapabilities, []string{"CAP_SYS_PTRACE"}) {
		t.Fatalf("kept %v", r.KeptCapabilities)
	}
	mask, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(out.String(), "CapBnd:")), 16, 64)
	if err != nil || mask&(1<<19) == 0 || mask&(1<<21) != 0 {
		t.Fatalf("agent's bounding set %q (%v): want CAP_SYS_PTRACE kept, CAP_SYS_ADMIN gone", out.String(), err)
	}
	if dumpable, err := kernel.Dumpable(); err != nil || dumpable {
		t.Fatalf("sysgate dumpable after a run: %v, %v", dumpable, err)
	}
	if _, err := Run(context.Background(), Agent{Command: []string{"/bin/true"}}, WithKeepCapabilities("CHOWN")); !errors.Is(err, ErrKeepCapability) {
		t.Fatalf("keep CHOWN: %v; want ErrKeepCapability", err)
	}
}
