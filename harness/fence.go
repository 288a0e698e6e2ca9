package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/internal/capability"
	"github.com/sysgate/sysgate/internal/kernel"
)

// ErrKeepCapability is returned (wrapped) by Run for a WithKeepCapabilities
// name that is not one of FencedCapabilities: bad input.
var ErrKeepCapability = errors.New("not a capability sysgate takes away")

// FencedCapability is a capability every agent loses before it execs,
// and why.
type FencedCapability struct {
	Cap    int
	Name   string // CAP_...
	Reason string
}

// FencedCapabilities are taken from all five capability sets of the
// agent's first process (bounding, effective, permitted, inheritable,
// ambient), so neither a root agent nor anything it execs holds them.
//
// The rule: take what reaches the observer (sysgate's memory, audit, the
// filter's logging), what starts code outside the run or inside the
// kernel, and what forges what the records say; keep what ordinary root
// work in CI uses on files, processes and the network. The gate watches a
// root agent; it is not a sandbox for one.
//
// Taken since issue 43 (item 5), though ordinary root work might use
// them: CAP_MKNOD (a block device node of the disk reads raw blocks past
// every file rule, reported as reads of the node's own path), CAP_FOWNER
// (chmod and utimes of files another user owns, and setting their
// attributes), CAP_SETFCAP (file capabilities that a later process outside
// the run, without no_new_privs, gains), CAP_NET_RAW (raw and packet
// sockets: forged packets past the run's forwarder; IP options: a source
// route sends packets to its first hop, not the call's address, issue 43
// item 12) and CAP_NET_ADMIN
// (routes, firewall rules and interfaces of its network namespace).
// An agent that needs one keeps it with --keep-cap, which
// every report names.
//
// Kept, on purpose:
//   - CAP_DAC_OVERRIDE, CAP_CHOWN, CAP_FSETID, CAP_LINUX_IMMUTABLE: root
//     agents write files as root (installers, build steps). Writing a cron
//     job or a systemd unit delegates work to a daemon outside the run;
//     that is a limit the docs/limits.md names, and no capability drop
//     short of "not root" closes it.
//   - CAP_SETUID, CAP_SETGID, CAP_SETPCAP: changing its own ids or
//     shrinking its own sets gives a root agent nothing it lacks.
//   - CAP_KILL: sysgate runs as root, the same uid, so a root agent may
//     signal it with or without CAP_KILL; a killed sysgate fails the job.
//   - CAP_NET_BIND_SERVICE, CAP_NET_BROADCAST: test servers on low ports
//     and broadcast are common in CI; the audit netlink socket checks
//     CAP_AUDIT_*, not these.
//   - CAP_SYS_CHROOT, CAP_SYS_NICE, CAP_SYS_RESOURCE, CAP_IPC_LOCK,
//     CAP_IPC_OWNER, CAP_LEASE, CAP_SYS_TTY_CONFIG, CAP_WAKE_ALARM,
//     CAP_BLOCK_SUSPEND, CAP_SYS_PACCT: process and resource work on this
//     machine; none reaches the observer (setns back out of the mount
//     namespace needs CAP_SYS_ADMIN too) or runs code elsewhere.
var FencedCapabilities = []FencedCapability{
	{21, "CAP_SYS_ADMIN", "writes seccomp's actions_logged (logging off), mounts over the read-only knobs, setns, and most of the rest"},
	{19, "CAP_SYS_PTRACE", "ptraces sysgate or opens its memory, past non-dumpable"},
	{16, "CAP_SYS_MODULE", "loads code into the kernel"},
	{17, "CAP_SYS_RAWIO", "reads and writes kernel memory and I/O ports (/dev/mem, iopl)"},
	{39, "CAP_BPF", "loads BPF programs into the kernel"},
	{38, "CAP_PERFMON", "perf events and BPF tracing of other processes, sysgate included"},
	{22, "CAP_SYS_BOOT", "reboots the machine or loads a new kernel (kexec)"},
	{33, "CAP_MAC_ADMIN", "changes the LSM policy"},
	{32, "CAP_MAC_OVERRIDE", "bypasses the LSM policy"},
	{34, "CAP_SYSLOG", "reads kernel addresses (kallsyms, dmesg): a step towards a kernel exploit"},
	{30, "CAP_AUDIT_CONTROL", "rewrites its loginuid (leaves the run's audit session) and changes audit settings"},
	{37, "CAP_AUDIT_READ", "reads the audit stream sysgate reads"},
	{29, "CAP_AUDIT_WRITE", "writes audit records of its own"},
	{2, "CAP_DAC_READ_SEARCH", "open_by_handle_at opens files past the mount namespace's read-only knobs; CAP_DAC_OVERRIDE covers reading files"},
	{25, "CAP_SYS_TIME", "sets the clock that stamps the audit records and the report"},
	{40, "CAP_CHECKPOINT_RESTORE", "rewrites its own exe link (PR_SET_MM_EXE_FILE), which the records name, and picks pids"},
	{27, "CAP_MKNOD", "makes a block device node of a disk and reads its raw blocks past every file rule"},
	{3, "CAP_FOWNER", "changes the mode, times and attributes of files other users own"},
	{31, "CAP_SETFCAP", "sets file capabilities that a process started outside the run later gains"},
	{13, "CAP_NET_RAW", "opens raw and packet sockets (forged packets past the run's forwarder) and sets IP source routes (packets to another address than the call names)"},
	{12, "CAP_NET_ADMIN", "changes the routes, firewall rules and interfaces of its network namespace"},
}

// fencedMask is the drop mask minus keep, limited to the capabilities the
// running kernel knows (dropping an unknown one fails).
func fencedMask(keep []int) (uint64, error) {
	last, err := kernel.LastCapability()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrAgentStart, err)
	}
	var mask uint64
	for _, f := range FencedCapabilities {
		if f.Cap <= last && !slices.Contains(keep, f.Cap) {
			mask |= 1 << f.Cap
		}
	}
	return mask, nil
}

// keptCapabilities resolves WithKeepCapabilities names to capability
// numbers and their canonical names, sorted.
func keptCapabilities(names []string) (caps []int, canonical []string, err error) {
	for _, name := range names {
		c, ok := capability.ByName(name)
		i := slices.IndexFunc(FencedCapabilities, func(f FencedCapability) bool { return f.Cap == c })
		if !ok || i < 0 {
			return nil, nil, fmt.Errorf("%w: %q (one of %s)", ErrKeepCapability, name, fencedNames())
		}
		if !slices.Contains(caps, c) {
			caps = append(caps, c)
			canonical = append(canonical, FencedCapabilities[i].Name)
		}
	}
	slices.Sort(canonical)
	return caps, canonical, nil
}

func fencedNames() string {
	var names []string
	for _, f := range FencedCapabilities {
		names = append(names, strings.TrimPrefix(f.Name, "CAP_"))
	}
	return strings.Join(names, ", ")
}

// protectSelf makes this process non-dumpable, once, for good: no process
// of the same uid without CAP_SYS_PTRACE can then ptrace it or open its
// memory while it supervises a run. Once per process rather than around
// each run: runs overlap (parallel specs, gatetest), and turning it back
// on between two runs would open a window for whichever run is still
// going. The cost is that a process that has run an agent (a Go test
// binary too) writes no core dump afterwards and its /proc files belong
// to root; sysgate needs root anyway.
var protectSelf = sync.OnceValue(kernel.SetNonDumpable)
