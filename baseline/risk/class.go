package risk

// Class names why a syscall, program or destination is risky; None means
// it is not. Risky syscalls are the ones the Docker/Podman default
// profiles and agent sandboxes refuse: they are tagged in every report and
// need a reason in a baseline.
type Class string

// Classes of syscalls and argument classes (Of).
const (
	None          Class = ""
	Namespace     Class = "namespace"      // leave or enter namespaces
	Mount         Class = "mount"          // change the mount table or root
	ProcessAccess Class = "process-access" // read or write another process
	KernelObserve Class = "kernel-observe" // bpf, perf: observe or program the kernel
	IOUring       Class = "io_uring"       // io_uring bypasses seccomp for its operations
	Keyring       Class = "keyring"        // kernel keyrings are not namespaced
	KernelModule  Class = "kernel-module"  // load code into the kernel or replace it
	Seccomp       Class = "seccomp"        // a filter of the agent's own can hide syscalls from the log
	System        Class = "system"         // host-wide settings: clock, hostname, swap, raw I/O
	RawNetwork    Class = "raw-network"    // packets below the socket layer
	ExecMemory    Class = "exec-memory"    // memory writable and executable at once
	Terminal      Class = "terminal"       // typing into, or taking over, a terminal
)

// Classes of programs (OfProgram).
const (
	Shell      Class = "shell"      // runs any command it is given
	Downloader Class = "downloader" // fetches or sends data over the network
	Compiler   Class = "compiler"   // builds new code at run time
)

// SensitivePath marks a files entry that names or covers a sensitive path
// (baseline.Widened); its reason is the entry's, not the class's.
const SensitivePath Class = "sensitive-path"

// Level grades a risky syscall or class: high ones are what an
// attacker's payload does (raw packets, a user namespace, W+X memory,
// keystrokes pushed into a terminal), the others need a reason as well.
type Level string

// Risk levels; NoLevel is the level of None.
const (
	NoLevel Level = ""
	Medium  Level = "medium"
	High    Level = "high"
)

// classReasons are the one-line reasons of each class, shown wherever a
// report names a risky syscall or program; syscallReasons overrides them
// per syscall.
var classReasons = map[Class]string{
	Namespace:     "enters or creates namespaces: a private view of mounts, users or the network that the baseline review never saw",
	Mount:         "changes the mount table or the root: can hide files from the gate's view of paths or expose the host's",
	ProcessAccess: "reads or writes another process's memory or files: it can act through a process outside the run",
	KernelObserve: "observes or programs the kernel (bpf, perf, userfaultfd): a lever over other processes and a common exploit primitive",
	IOUring:       "io_uring runs its operations without a syscall entry: the seccomp filter never sees them",
	Keyring:       "kernel keyrings are not namespaced: keys leak across runs and users",
	KernelModule:  "loads code into the kernel or replaces the kernel: nothing above it is trustworthy after",
	Seccomp:       "a seccomp filter of the agent's own outranks the gate's LOG: it can hide later syscalls from the log",
	System:        "changes host-wide settings (clock, hostname, swap, raw I/O): outlives the run",
	RawNetwork:    "builds and reads packets below the socket layer: sniffs the host's traffic and spoofs or smuggles packets past firewall rules",
	ExecMemory:    "memory that is writable and executable at once runs code written at run time: the shape of injected shellcode (and of some JITs)",
	Terminal:      "pushes input into a terminal or takes over its console: commands typed as the user who owns it",

	Shell:      "runs whatever command line it is handed: anything the agent passes it is outside what the baseline names",
	Downloader: "moves data over the network on its own: the usual way to fetch a second-stage payload or send files out",
	Compiler:   "builds native code during the run: code that no review saw, ready to execute",
}

// Reason is the one-line reason of class c, "" for None and for
// SensitivePath. A network destination of class Shell or Downloader is
// risky for the program's reason.
func (c Class) Reason() string {
	if r, ok := networkReasons[c]; ok {
		return r
	}
	return classReasons[c]
}

// Label is how reports print risk c at level l (see Label): a finding or
// violation read back from a report keeps the level it was graded at.
func (c Class) Label(l Level) string {
	switch {
	case c == None:
		return ""
	case l == High:
		return string(c) + ", high"
	}
	return string(c)
}

// Risky reports whether c is a risk class (not None).
func (c Class) Risky() bool { return c != None }
