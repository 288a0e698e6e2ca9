package risk

import (
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestRiskTableHasAReasonForEveryEntry(t *testing.T) {
	for _, name := range []string{"prctl", "seccomp", "ptrace", "process_vm_writev", "io_uring_setup", "io_uring_enter",
		"io_uring_register", "userfaultfd", "perf_event_open", "bpf", "kexec_load", "kexec_file_load", "init_module",
		"finit_module", "delete_module", "mount", "unshare", "setns"} {
		if !Of(name).Risky() {
			t.Errorf("%s is not in the risk table", name)
		}
	}
	for name, class := range syscallTable {
		if Reason(name) == "" {
			t.Errorf("%s (%s) has no reason", name, class)
		}
	}
	for name := range syscallReasons {
		if !Of(name).Risky() {
			t.Errorf("syscallReasons names %s, which is not in the table", name)
		}
	}
	if Reason("read") != "" || Of("read").Risky() {
		t.Errorf("read is risky")
	}
	if _, ok := scmp.Number(scmp.X86_64, "prctl"); !ok {
		t.Fatal("prctl unknown")
	}
}

func TestRiskNamesAreRealSyscalls(t *testing.T) {
	arches := []scmp.Arch{scmp.X86_64, scmp.I386, scmp.AArch64, scmp.ARM}
	for name, class := range syscallTable {
		known := false
		for _, a := range arches {
			if _, ok := scmp.Number(a, name); ok {
				known = true
			}
		}
		if !known {
			t.Errorf("risk table names %q (%s), which libseccomp knows on no common arch", name, class)
		}
	}
	if Of("read") != None || Of("ptrace") != ProcessAccess || !Of("io_uring_setup").Risky() {
		t.Errorf("risk classes wrong")
	}
}

func TestClassRisks(t *testing.T) {
	for key, want := range map[string]string{
		"socket(AF_PACKET)":         "raw-network, high",
		"socket(AF_INET, SOCK_RAW)": "raw-network, high",
		"socket(AF_INET)":           "",
		"clone(CLONE_NEWUSER)":      "namespace, high",
		"clone(CLONE_NEWNET)":       "namespace",
		"clone(none)":               "",
		"unshare(none)":             "",
		"unshare":                   "namespace",
		"mmap(W+X)":                 "exec-memory, high",
		"mprotect(W^X)":             "",
		"ioctl(TIOCSTI)":            "terminal, high",
		"ioctl(TCGETS)":             "",
		"prctl(PR_SET_NAME)":        "",
		"prctl(PR_SET_SECCOMP)":     "seccomp",
		"prctl":                     "seccomp",
		"ptrace(PTRACE_TRACEME)":    "process-access",
		"personality(PER_LINUX|READ_IMPLIES_EXEC)": "exec-memory, high",
	} {
		if got := Label(key); got != want {
			t.Errorf("Label(%s) = %q, want %q", key, got, want)
		}
		if want != "" && Reason(key) == "" {
			t.Errorf("%s is risky without a reason", key)
		}
	}
}

func TestProgramRisk(t *testing.T) {
	cases := []struct {
		prog  string
		risk  Class
		level Level
	}{
		{"/usr/bin/bash", Shell, High},
		{"/bin/bash5", Shell, High},
		{"/usr/bin/dash", Shell, High},
		{"/usr/bin/zsh-5.9", Shell, High},
		{"/bin/busybox", Shell, High},
		{"/usr/bin/curl", Downloader, High},
		{"/usr/bin/nc.openbsd", Downloader, High},
		{"/usr/bin/ssh", Downloader, High},
		{"/usr/bin/gcc-14", Compiler, Medium},
		{"/usr/bin/x86_64-linux-gnu-gcc-14", Compiler, Medium},
		{"/usr/bin/aarch64-linux-gnu-ld.bfd", Compiler, Medium},
		{"/usr/bin/x86_64-w64-mingw32-g++", Compiler, Medium},
		{"/usr/lib/gcc/x86_64-linux-gnu/14/cc1", Compiler, Medium},
		{"/usr/bin/clang-18", Compiler, Medium},
		{"/usr/local/go/bin/go", Compiler, Medium},
		{"/usr/bin/python3.13", None, NoLevel},
		{"/usr/bin/x86_64-linux-gnu-python3.13", None, NoLevel},
		{"/usr/bin/node", None, NoLevel},
		{"/usr/bin/bashful", None, NoLevel},
		{"/usr/bin/gcc-ar-14", None, NoLevel},
		{"/usr/bin/docker-credential-as", None, NoLevel}, // not a toolchain's target prefix
		{"/usr/bin/base64", None, NoLevel},
		{"/usr/bin/git", None, NoLevel},
	}
	for _, c := range cases {
		r, l := OfProgram(c.prog)
		if r != c.risk || l != c.level {
			t.Errorf("%s: %q %q, want %q %q", c.prog, r, l, c.risk, c.level)
		}
		if reason := ProgramReason(c.prog); (reason != "") != c.risk.Risky() {
			t.Errorf("%s: reason %q", c.prog, reason)
		}
	}
}

func TestEveryClassHasAReason(t *testing.T) {
	for _, c := range []Class{Namespace, Mount, ProcessAccess, KernelObserve, IOUring, Keyring, KernelModule, Seccomp,
		System, RawNetwork, ExecMemory, Terminal, Shell, Downloader, Compiler,
		CloudMetadata, ExposedListener, RemotePort, ContainerSocket, OwnResolver, DNSTunnel} {
		if !c.Risky() || c.Reason() == "" {
			t.Errorf("class %q: risky %v, reason %q", c, c.Risky(), c.Reason())
		}
	}
	if None.Risky() || None.Reason() != "" || None.Label(High) != "" || SensitivePath.Reason() != "" {
		t.Errorf("None or SensitivePath has a reason or label")
	}
	if got := Shell.Label(High); got != "shell, high" {
		t.Errorf("Shell.Label(High) = %q", got)
	}
	if got := Compiler.Label(Medium); got != "compiler" {
		t.Errorf("Compiler.Label(Medium) = %q", got)
	}
}
