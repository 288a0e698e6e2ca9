package baseline

import (
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestRiskTableHasAReasonForEveryEntry(t *testing.T) {
	for _, name := range []string{"prctl", "seccomp", "ptrace", "process_vm_writev", "io_uring_setup", "io_uring_enter",
		"io_uring_register", "userfaultfd", "perf_event_open", "bpf", "kexec_load", "kexec_file_load", "init_module",
		"finit_module", "delete_module", "mount", "unshare", "setns"} {
		if !Risk(name).Risky() {
			t.Errorf("%s is not in the risk table", name)
		}
	}
	for name, class := range riskTable {
		if RiskReason(name) == "" {
			t.Errorf("%s (%s) has no reason", name, class)
		}
	}
	for name := range riskReasons {
		if !Risk(name).Risky() {
			t.Errorf("riskReasons names %s, which is not in the table", name)
		}
	}
	for _, c := range Channels {
		// openat2 is refused because the filter cannot class it, not
		// for a risk of its own (its unmonitored entry needs a reason).
		if c.Syscall != "openat2" && !Risk(c.Syscall).Risky() {
			t.Errorf("channel %s is not risky", c.Syscall)
		}
	}
	if RiskReason("read") != "" || Risk("read").Risky() {
		t.Errorf("read is risky")
	}
	if _, ok := scmp.Number(scmp.X86_64, "prctl"); !ok {
		t.Fatal("prctl unknown")
	}
}
