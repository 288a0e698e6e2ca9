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

// riskTable maps syscall names (any arch) to their class. Names are the
// same on every arch libseccomp knows, so one table serves all.
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

	"seccomp": RiskSeccomp,

	"reboot": RiskSystem, "swapon": RiskSystem, "swapoff": RiskSystem, "acct": RiskSystem,
	"settimeofday": RiskSystem, "clock_settime": RiskSystem, "clock_adjtime": RiskSystem,
	"adjtimex": RiskSystem, "stime": RiskSystem, "sethostname": RiskSystem, "setdomainname": RiskSystem,
	"iopl": RiskSystem, "ioperm": RiskSystem, "quotactl": RiskSystem, "syslog": RiskSystem,
	"nfsservctl": RiskSystem, "vhangup": RiskSystem, "uselib": RiskSystem, "_sysctl": RiskSystem,
}

// Risk returns the risk class of a syscall name, "" when it is not risky.
func Risk(name string) RiskClass { return riskTable[name] }

// Risky reports whether r is a risk class (not RiskNone).
func (r RiskClass) Risky() bool { return r != RiskNone }
