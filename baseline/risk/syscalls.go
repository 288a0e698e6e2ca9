package risk

import (
	"strings"

	"github.com/sysgate/sysgate/baseline/argclass"
)

// syscallReasons override the class's reason for some syscalls.
var syscallReasons = map[string]string{
	"prctl":             "PR_SET_SECCOMP installs a filter that can hide later syscalls; PR_SET_DUMPABLE and PR_SET_PTRACER open the process to others",
	"ptrace":            "controls another process: its syscalls then run under the tracer's will, and the tracer can read and patch its memory",
	"process_vm_writev": "writes another process's memory directly, without ptrace's stop",
	"userfaultfd":       "stalls the kernel on a page fault at a moment the agent picks: the classic way to win a kernel race",
	"perf_event_open":   "observes other processes and the kernel, and has a long record of kernel exploits",
	"bpf":               "loads programs into the kernel that can observe or change what other processes do",
	"unshare":           "creates namespaces (user, mount, network): root-like powers inside them, over objects the review never saw",
	"setns":             "joins another namespace: the network, mounts or pids of another container or of the host",
	"clone3":            "its flags sit behind a pointer the filter cannot read: it may create user, mount or network namespaces unseen",
	"mount":             "mounts file systems: can shadow paths the agent is expected to use",
	"seccomp":           "a filter of the agent's own outranks the gate's LOG; one with a listener (refused) could run calls unseen",
	"kexec_load":        "replaces the running kernel",
	"kexec_file_load":   "replaces the running kernel",
}

// syscallTable maps syscall names (any arch) to their class. Names are the
// same on every arch libseccomp knows, so one table serves all.
//
// clone is not in it: its argument classes (clone(CLONE_NEWUSER), see
// package baseline/argclass) carry the namespace risk, while a plain fork
// is no risk.
// clone3's flags are behind a pointer the filter cannot read: it is a
// refused channel (baseline.Channels), so libc falls back to clone.
var syscallTable = map[string]Class{
	"unshare": Namespace, "setns": Namespace, "clone3": Namespace,

	"mount": Mount, "umount": Mount, "umount2": Mount, "pivot_root": Mount,
	"chroot": Mount, "fsopen": Mount, "fsconfig": Mount, "fsmount": Mount,
	"fspick": Mount, "move_mount": Mount, "open_tree": Mount, "mount_setattr": Mount,

	"ptrace": ProcessAccess, "process_vm_readv": ProcessAccess, "process_vm_writev": ProcessAccess,
	"pidfd_getfd": ProcessAccess, "kcmp": ProcessAccess, "process_madvise": ProcessAccess,
	"open_by_handle_at": ProcessAccess,

	"bpf": KernelObserve, "perf_event_open": KernelObserve, "userfaultfd": KernelObserve,
	"fanotify_init": KernelObserve, "lookup_dcookie": KernelObserve,

	"io_uring_setup": IOUring, "io_uring_enter": IOUring, "io_uring_register": IOUring,

	"keyctl": Keyring, "add_key": Keyring, "request_key": Keyring,

	"init_module": KernelModule, "finit_module": KernelModule, "delete_module": KernelModule,
	"kexec_load": KernelModule, "kexec_file_load": KernelModule, "create_module": KernelModule,

	// The audit record has no arguments: a prctl outside the baseline
	// may be PR_SET_SECCOMP.
	"seccomp": Seccomp, "prctl": Seccomp,

	"reboot": System, "swapon": System, "swapoff": System, "acct": System,
	"settimeofday": System, "clock_settime": System, "clock_adjtime": System,
	"adjtimex": System, "stime": System, "sethostname": System, "setdomainname": System,
	"iopl": System, "ioperm": System, "quotactl": System, "syslog": System,
	"nfsservctl": System, "vhangup": System, "uselib": System, "_sysctl": System,
}

// highSyscalls are the argument-blind syscalls graded high.
var highSyscalls = map[string]bool{
	"init_module": true, "finit_module": true, "kexec_load": true, "kexec_file_load": true,
	"bpf": true, "process_vm_writev": true,
}

// Of returns the risk class of a syscall name or an argument class key
// ("socket(AF_PACKET)"), None when it is not risky. validate, diff, the PR
// body and every report take it from here. A class is graded by what it
// does, not by its syscall: unshare(none) is not risky, an argument-blind
// unshare is.
func Of(key string) Class {
	r, _ := of(key)
	return r
}

// LevelOf grades a risky syscall or class; NoLevel when it is not risky.
func LevelOf(key string) Level {
	_, l := of(key)
	return l
}

func of(key string) (Class, Level) {
	name, class := argclass.SplitKey(key)
	if class == "" {
		r := syscallTable[name]
		switch {
		case r == None:
			return r, NoLevel
		case highSyscalls[name]:
			return r, High
		}
		return r, Medium
	}
	return classRisk(name, class)
}

// classRisk grades one argument class.
func classRisk(name, class string) (Class, Level) {
	switch name {
	case "socket", "socketpair":
		if strings.HasPrefix(class, "AF_PACKET") || strings.HasSuffix(class, "SOCK_RAW") {
			return RawNetwork, High
		}
	case "clone", "unshare", "setns":
		switch {
		case strings.Contains(class, "CLONE_NEWUSER"):
			return Namespace, High
		case class == "any" || strings.Contains(class, "CLONE_NEW"):
			return Namespace, Medium
		}
	case "mmap", "mmap2", "mprotect", "pkey_mprotect":
		if class == "W+X" {
			return ExecMemory, High
		}
	case "personality":
		if strings.Contains(class, "READ_IMPLIES_EXEC") {
			return ExecMemory, High
		}
		if strings.Contains(class, "ADDR_NO_RANDOMIZE") || strings.Contains(class, "MMAP_PAGE_ZERO") {
			return ExecMemory, Medium
		}
	case "ioctl":
		switch class {
		case "TIOCSTI", "TIOCLINUX":
			return Terminal, High
		case "TIOCCONS", "TIOCSETD":
			return Terminal, Medium
		}
	case "prctl":
		switch class {
		case "PR_SET_SECCOMP":
			return Seccomp, Medium
		case "PR_SET_DUMPABLE", "PR_SET_PTRACER", "PR_SET_MM":
			return ProcessAccess, Medium
		}
	case "ptrace":
		switch class {
		case "PTRACE_ATTACH", "PTRACE_SEIZE", "PTRACE_POKETEXT", "PTRACE_POKEDATA", "PTRACE_POKEUSR",
			"PTRACE_SETREGS", "PTRACE_SETREGSET":
			return ProcessAccess, High
		}
		return ProcessAccess, Medium
	}
	return None, NoLevel
}

// classRiskReasons override the class's reason for some argument classes.
var classRiskReasons = map[string]string{
	"ioctl(TIOCSTI)":         "TIOCSTI pushes characters into a terminal's input queue: the shell that owns it runs them as typed commands",
	"ioctl(TIOCLINUX)":       "TIOCLINUX reads and pastes the virtual console's contents: keystrokes and screen of another session",
	"prctl(PR_SET_SECCOMP)":  "installs a seccomp filter of the agent's own, which outranks the gate's LOG for later syscalls",
	"prctl(PR_SET_DUMPABLE)": "makes the process dumpable again: other processes of its uid may then ptrace it and read its memory",
	"prctl(PR_SET_PTRACER)":  "lets another process ptrace this one despite Yama's restrictions",
}

// Reason is the one-line reason a syscall or class is risky, "" when it
// is not.
func Reason(key string) string {
	if r, ok := classRiskReasons[key]; ok {
		return r
	}
	if r, ok := syscallReasons[key]; ok {
		return r
	}
	return Of(key).Reason()
}

// Label is how reports print the risk of a syscall or class:
// "namespace", or "namespace, high" for a high one; "" when not risky.
func Label(key string) string {
	r, l := of(key)
	return r.Label(l)
}
