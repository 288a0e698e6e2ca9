package baseline

import "github.com/sysgate/sysgate/baseline/argclass"
import "strings"

// RiskClass names why a syscall is risky; "" means it is not. Risky
// syscalls are the ones the Docker/Podman default profiles and agent
// sandboxes refuse: they are tagged in every report and need a reason in a
// baseline.
type RiskClass string

// Risk classes.
const (
	RiskNone          RiskClass = ""
	RiskNamespace     RiskClass = "namespace"      // leave or enter namespaces
	RiskMount         RiskClass = "mount"          // change the mount table or root
	RiskProcessAccess RiskClass = "process-access" // read or write another process
	RiskKernelObserve RiskClass = "kernel-observe" // bpf, perf: observe or program the kernel
	RiskIOUring       RiskClass = "io_uring"       // io_uring bypasses seccomp for its operations
	RiskKeyring       RiskClass = "keyring"        // kernel keyrings are not namespaced
	RiskKernelModule  RiskClass = "kernel-module"  // load code into the kernel or replace it
	RiskSeccomp       RiskClass = "seccomp"        // a filter of the agent's own can hide syscalls from the log
	RiskSystem        RiskClass = "system"         // host-wide settings: clock, hostname, swap, raw I/O
	RiskRawNetwork    RiskClass = "raw-network"    // packets below the socket layer
	RiskExecMemory    RiskClass = "exec-memory"    // memory writable and executable at once
	RiskTerminal      RiskClass = "terminal"       // typing into, or taking over, a terminal

	// Classes of programs (ProgramRisk).
	RiskShell      RiskClass = "shell"      // runs any command it is given
	RiskDownloader RiskClass = "downloader" // fetches or sends data over the network
	RiskCompiler   RiskClass = "compiler"   // builds new code at run time
)

// RiskLevel grades a risky syscall or class: high ones are what an
// attacker's payload does (raw packets, a user namespace, W+X memory,
// keystrokes pushed into a terminal), the others need a reason as well.
type RiskLevel string

// Risk levels.
const (
	LevelNone   RiskLevel = ""
	LevelMedium RiskLevel = "medium"
	LevelHigh   RiskLevel = "high"
)

// classReasons are the one-line reasons of each class, shown wherever a
// report names a risky syscall or program; riskReasons overrides them per
// syscall.
var classReasons = map[RiskClass]string{
	RiskNamespace:     "enters or creates namespaces: a private view of mounts, users or the network that the baseline review never saw",
	RiskMount:         "changes the mount table or the root: can hide files from the gate's view of paths or expose the host's",
	RiskProcessAccess: "reads or writes another process's memory or files: it can act through a process outside the run",
	RiskKernelObserve: "observes or programs the kernel (bpf, perf, userfaultfd): a lever over other processes and a common exploit primitive",
	RiskIOUring:       "io_uring runs its operations without a syscall entry: the seccomp filter never sees them",
	RiskKeyring:       "kernel keyrings are not namespaced: keys leak across runs and users",
	RiskKernelModule:  "loads code into the kernel or replaces the kernel: nothing above it is trustworthy after",
	RiskSeccomp:       "a seccomp filter of the agent's own outranks the gate's LOG: it can hide later syscalls from the log",
	RiskSystem:        "changes host-wide settings (clock, hostname, swap, raw I/O): outlives the run",
	RiskRawNetwork:    "builds and reads packets below the socket layer: sniffs the host's traffic and spoofs or smuggles packets past firewall rules",
	RiskExecMemory:    "memory that is writable and executable at once runs code written at run time: the shape of injected shellcode (and of some JITs)",
	RiskTerminal:      "pushes input into a terminal or takes over its console: commands typed as the user who owns it",

	RiskShell:      "runs whatever command line it is handed: anything the agent passes it is outside what the baseline names",
	RiskDownloader: "moves data over the network on its own: the usual way to fetch a second-stage payload or send files out",
	RiskCompiler:   "builds native code during the run: code that no review saw, ready to execute",
}

var riskReasons = map[string]string{
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

// riskTable maps syscall names (any arch) to their class. Names are the
// same on every arch libseccomp knows, so one table serves all.
//
// clone is not in it: its argument classes (clone(CLONE_NEWUSER), see
// argclass.go) carry the namespace risk, while a plain fork is no risk.
// clone3's flags are behind a pointer the filter cannot read: it is a
// refused channel (Channels), so libc falls back to clone.
var riskTable = map[string]RiskClass{
	"unshare": RiskNamespace, "setns": RiskNamespace, "clone3": RiskNamespace,

	"mount": RiskMount, "umount": RiskMount, "umount2": RiskMount, "pivot_root": RiskMount,
	"chroot": RiskMount, "fsopen": RiskMount, "fsconfig": RiskMount, "fsmount": RiskMount,
	"fspick": RiskMount, "move_mount": RiskMount, "open_tree": RiskMount, "mount_setattr": RiskMount,

	"ptrace": RiskProcessAccess, "process_vm_readv": RiskProcessAccess, "process_vm_writev": RiskProcessAccess,
	"pidfd_getfd": RiskProcessAccess, "kcmp": RiskProcessAccess, "process_madvise": RiskProcessAccess,
	"open_by_handle_at": RiskProcessAccess,

	"bpf": RiskKernelObserve, "perf_event_open": RiskKernelObserve, "userfaultfd": RiskKernelObserve,
	"fanotify_init": RiskKernelObserve, "lookup_dcookie": RiskKernelObserve,

	"io_uring_setup": RiskIOUring, "io_uring_enter": RiskIOUring, "io_uring_register": RiskIOUring,

	"keyctl": RiskKeyring, "add_key": RiskKeyring, "request_key": RiskKeyring,

	"init_module": RiskKernelModule, "finit_module": RiskKernelModule, "delete_module": RiskKernelModule,
	"kexec_load": RiskKernelModule, "kexec_file_load": RiskKernelModule, "create_module": RiskKernelModule,

	// The audit record has no arguments: a prctl outside the baseline
	// may be PR_SET_SECCOMP.
	"seccomp": RiskSeccomp, "prctl": RiskSeccomp,

	"reboot": RiskSystem, "swapon": RiskSystem, "swapoff": RiskSystem, "acct": RiskSystem,
	"settimeofday": RiskSystem, "clock_settime": RiskSystem, "clock_adjtime": RiskSystem,
	"adjtimex": RiskSystem, "stime": RiskSystem, "sethostname": RiskSystem, "setdomainname": RiskSystem,
	"iopl": RiskSystem, "ioperm": RiskSystem, "quotactl": RiskSystem, "syslog": RiskSystem,
	"nfsservctl": RiskSystem, "vhangup": RiskSystem, "uselib": RiskSystem, "_sysctl": RiskSystem,
}

// highRisk are the argument-blind syscalls graded high.
var highRisk = map[string]bool{
	"init_module": true, "finit_module": true, "kexec_load": true, "kexec_file_load": true,
	"bpf": true, "process_vm_writev": true,
}

// Risk returns the risk class of a syscall name or an argument class key
// ("socket(AF_PACKET)"), "" when it is not risky. validate, diff, the PR
// body and every report take it from here. A class is graded by what it
// does, not by its syscall: unshare(none) is not risky, an argument-blind
// unshare is.
func Risk(key string) RiskClass {
	r, _ := riskOf(key)
	return r
}

// RiskLevelOf grades a risky syscall or class; LevelNone when it is not
// risky.
func RiskLevelOf(key string) RiskLevel {
	_, l := riskOf(key)
	return l
}

func riskOf(key string) (RiskClass, RiskLevel) {
	name, class := argclass.SplitKey(key)
	if class == "" {
		r := riskTable[name]
		switch {
		case r == RiskNone:
			return r, LevelNone
		case highRisk[name]:
			return r, LevelHigh
		}
		return r, LevelMedium
	}
	return classRisk(name, class)
}

// classRisk grades one argument class.
func classRisk(name, class string) (RiskClass, RiskLevel) {
	switch name {
	case "socket", "socketpair":
		if strings.HasPrefix(class, "AF_PACKET") || strings.HasSuffix(class, "SOCK_RAW") {
			return RiskRawNetwork, LevelHigh
		}
	case "clone", "unshare", "setns":
		switch {
		case strings.Contains(class, "CLONE_NEWUSER"):
			return RiskNamespace, LevelHigh
		case class == "any" || strings.Contains(class, "CLONE_NEW"):
			return RiskNamespace, LevelMedium
		}
	case "mmap", "mmap2", "mprotect", "pkey_mprotect":
		if class == "W+X" {
			return RiskExecMemory, LevelHigh
		}
	case "personality":
		if strings.Contains(class, "READ_IMPLIES_EXEC") {
			return RiskExecMemory, LevelHigh
		}
		if strings.Contains(class, "ADDR_NO_RANDOMIZE") || strings.Contains(class, "MMAP_PAGE_ZERO") {
			return RiskExecMemory, LevelMedium
		}
	case "ioctl":
		switch class {
		case "TIOCSTI", "TIOCLINUX":
			return RiskTerminal, LevelHigh
		case "TIOCCONS", "TIOCSETD":
			return RiskTerminal, LevelMedium
		}
	case "prctl":
		switch class {
		case "PR_SET_SECCOMP":
			return RiskSeccomp, LevelMedium
		case "PR_SET_DUMPABLE", "PR_SET_PTRACER", "PR_SET_MM":
			return RiskProcessAccess, LevelMedium
		}
	case "ptrace":
		switch class {
		case "PTRACE_ATTACH", "PTRACE_SEIZE", "PTRACE_POKETEXT", "PTRACE_POKEDATA", "PTRACE_POKEUSR",
			"PTRACE_SETREGS", "PTRACE_SETREGSET":
			return RiskProcessAccess, LevelHigh
		}
		return RiskProcessAccess, LevelMedium
	}
	return RiskNone, LevelNone
}

// classRiskReasons override the class's reason for some argument classes.
var classRiskReasons = map[string]string{
	"ioctl(TIOCSTI)":         "TIOCSTI pushes characters into a terminal's input queue: the shell that owns it runs them as typed commands",
	"ioctl(TIOCLINUX)":       "TIOCLINUX reads and pastes the virtual console's contents: keystrokes and screen of another session",
	"prctl(PR_SET_SECCOMP)":  "installs a seccomp filter of the agent's own, which outranks the gate's LOG for later syscalls",
	"prctl(PR_SET_DUMPABLE)": "makes the process dumpable again: other processes of its uid may then ptrace it and read its memory",
	"prctl(PR_SET_PTRACER)":  "lets another process ptrace this one despite Yama's restrictions",
}

// RiskReason is the one-line reason a syscall or class is risky, "" when
// it is not.
func RiskReason(key string) string {
	if r, ok := classRiskReasons[key]; ok {
		return r
	}
	if r, ok := riskReasons[key]; ok {
		return r
	}
	return classReasons[Risk(key)]
}

// RiskLabel is how reports print a risk: "namespace", or "namespace, high"
// for a high one; "" when not risky.
func RiskLabel(key string) string {
	r, l := riskOf(key)
	return r.Label(l)
}

// Label is how reports print risk r at level l (see RiskLabel): a finding
// or violation read back from a report keeps the level it was graded at.
func (r RiskClass) Label(l RiskLevel) string {
	switch {
	case r == RiskNone:
		return ""
	case l == LevelHigh:
		return string(r) + ", high"
	}
	return string(r)
}

// Risky reports whether r is a risk class (not RiskNone).
func (r RiskClass) Risky() bool { return r != RiskNone }
