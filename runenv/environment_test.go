package runenv

import (
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/envprobe"
)

// Machines of one kind differ in their kernel's build: what the probe
// reads on each is one environment, and a baseline that fingerprints it
// drifts only where the kernel's version does.
func TestEnvironmentOfKeepsTheKernelVersion(t *testing.T) {
	recorded := environmentOf(envprobe.Host{Kernel: "6.18.44-fc-v657", OS: "debian 12", Libc: "glibc 2.36"})
	want := baseline.Environment{Kernel: []string{"6.18"}, OS: []string{"debian 12"}, Libc: []string{"glibc 2.36"}}
	if !reflect.DeepEqual(recorded, want) {
		t.Fatalf("environment %+v, want %+v", recorded, want)
	}
	for release, drift := range map[string]string{
		"6.18.44-fc-v1300": "",
		"6.8.0-1017-azure": "kernel 6.18 → 6.8",
	} {
		now := environmentOf(envprobe.Host{Kernel: release, OS: "debian 12", Libc: "glibc 2.36"})
		if got := baseline.DescribeChanges(baseline.CompareEnvironments(recorded, now)); got != drift {
			t.Errorf("recorded on 6.18.44-fc-v657, run on %s: drift %q, want %q", release, got, drift)
		}
	}
	if env := environmentOf(envprobe.Host{}); !env.IsZero() {
		t.Errorf("nothing probed: %+v", env)
	}
}

// baseline diff --base judges the layers CommandSelector picks: the run's
// own reading of its command. A Go agent's binary gives {go}, which the
// machine's PATH never does (issue 43, item 7).
func TestCommandSelectorReadsTheCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(strings.SplitN(strings.TrimPrefix(runtime.Version(), "go"), ".", 3)[:2], ".")
	sel := CommandSelector([]string{self}, os.Environ(), "", "")
	if sel["go"] != want {
		t.Errorf("the agent's binary: {go} = %q, want %q (%v)", sel["go"], want, sel)
	}
	if env := CommandEnvironment([]string{self}, os.Environ(), "", ""); !reflect.DeepEqual(Selector(env), sel) {
		t.Errorf("the run picks %v, the diff %v", Selector(env), sel)
	}
	if host := HostSelector(os.Environ()); host["go"] != "" {
		t.Errorf("the host's selector has {go} = %q: it reads python3 and node only", host["go"])
	}
}
