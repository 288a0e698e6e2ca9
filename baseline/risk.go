package baseline

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
)

// classReasons are the one-line reasons of each class, shown wherever a
// report names a risky syscall; riskReasons overrides them per syscall.
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
	"mount":             "mounts file systems: can shadow paths the agent is expected to use",
	"seccomp":           "a filter of the agent's own outranks the gate's LOG; one with a listener (refused) could run calls unseen",
	"kexec_load":        "replaces the running kernel",
	"kexec_file_load":   "replaces the running kernel",
}

// riskTable maps syscall names (any arch) to their class. Names are the
// same on every arch libseccomp knows, so one table serves all.
//
// clone and clone3 are not in it, though some of their flags create
// namespaces (CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID, ...)
// like unshare: audit records carry no arguments, so telling a risky clone
// from a plain fork needs an argument class in the filter (clone's flags
// are a register; clone3's are behind a pointer the filter cannot read).
// That is a later issue; until then the namespaces such a clone creates
// show up as the unshare/setns/mount calls that usually follow.
var riskTable = map[string]RiskClass{
	"unshare": RiskNamespace, "setns": RiskNamespace,

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

// Risk returns the risk class of a syscall name, "" when it is not risky.
// validate, diff, the PR body and every report take it from here.
func Risk(name string) RiskClass { return riskTable[name] }

// RiskReason is the one-line reason a syscall is risky, "" when it is not.
func RiskReason(name string) string {
	if r, ok := riskReasons[name]; ok {
		return r
	}
	return classReasons[riskTable[name]]
}

// Risky reports whether r is a risk class (not RiskNone).
func (r RiskClass) Risky() bool { return r != RiskNone }
