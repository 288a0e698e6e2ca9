package filecalls

import (
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

// noFile are the calls that take no path and no descriptor of a file,
// or take one and can neither change nor reveal a file: processes,
// memory, signals, time, credentials, IPC objects and sockets without a
// path, anonymous descriptors (epoll, eventfd, timerfd, signalfd,
// pidfd, userfaultfd), and obsolete or arch-private entry points. A
// call libseccomp learns later is in none of the three lists, and this
// test fails until someone puts it in one.
var noFile = strings.Fields(`
_newselect accept accept4 add_key adjtimex afs_syscall alarm arch_prctl bdflush break breakpoint
brk cacheflush capget capset clock_adjtime clock_adjtime64 clock_getres clock_getres_time64
clock_gettime clock_gettime64 clock_nanosleep clock_nanosleep_time64 clock_settime clock_settime64
clone clone3 create_module epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait
epoll_pwait2 epoll_wait epoll_wait_old eventfd eventfd2 exit exit_group fork ftime futex
futex_requeue futex_time64 futex_wait futex_waitv futex_wake get_kernel_syms get_mempolicy
get_robust_list get_thread_area get_tls getcpu getegid getegid32 geteuid geteuid32 getgid getgid32
getgroups getgroups32 getitimer getpeername getpgid getpgrp getpid getpmsg getppid getpriority
getrandom getresgid getresgid32 getresuid getresuid32 getrlimit getrusage getsid getsockname
getsockopt gettid gettimeofday getuid getuid32 gtty idle ioperm iopl ioprio_get ioprio_set ipc
keyctl kill landlock_create_ruleset landlock_restrict_self listen lock map_shadow_stack mbind
membarrier migrate_pages mlock mlock2 mlockall modify_ldt move_pages mpx mq_getsetattr mq_notify
mq_timedreceive mq_timedreceive_time64 mq_timedsend mq_timedsend_time64 msgctl msgget msgrcv msgsnd
multiplexer munlock munlockall munmap nanosleep nice oldolduname olduname pause pciconfig_iobase
pciconfig_read pciconfig_write perf_event_open personality pidfd_open pidfd_send_signal pipe pipe2
pkey_alloc pkey_free poll ppoll ppoll_time64 prctl prlimit64 process_mrelease process_vm_readv
process_vm_writev prof profil pselect6 pselect6_time64 ptrace putpmsg query_module reboot recv
recvfrom request_key restart_syscall riscv_flush_icache rseq rt_sigaction rt_sigpending
rt_sigprocmask rt_sigqueueinfo rt_sigreturn rt_sigsuspend rt_sigtimedwait rt_sigtimedwait_time64
rt_tgsigqueueinfo rtas s390_guarded_storage s390_pci_mmio_read s390_pci_mmio_write
s390_runtime_instr s390_sthyi sched_get_priority_max sched_get_priority_min sched_getaffinity
sched_getattr sched_getparam sched_getscheduler sched_rr_get_interval sched_rr_get_interval_time64
sched_setaffinity sched_setattr sched_setparam sched_setscheduler sched_yield seccomp security
select semctl semget semop semtimedop semtimedop_time64 send set_mempolicy set_mempolicy_home_node
set_robust_list set_thread_area set_tid_address set_tls setdomainname setfsgid setfsgid32 setfsuid
setfsuid32 setgid setgid32 setgroups setgroups32 sethostname setitimer setpgid setpriority setregid
setregid32 setresgid setresgid32 setresuid setresuid32 setreuid setreuid32 setrlimit setsid
setsockopt settimeofday setuid setuid32 sgetmask shmat shmctl shmdt shmget shutdown sigaction
sigaltstack signal signalfd signalfd4 sigpending sigprocmask sigreturn sigsuspend socket socketpair
ssetmask stime stty subpage_prot swapcontext switch_endian sync sys_debug_setcontext sysfs sysinfo
syslog tgkill time timer_create timer_delete timer_getoverrun timer_gettime timer_gettime64
timer_settime timer_settime64 timerfd timerfd_create timerfd_gettime timerfd_gettime64
timerfd_settime timerfd_settime64 times tkill tuxcall ugetrlimit ulimit umask uname userfaultfd
usr26 usr32 vfork vhangup vm86 vm86old vserver wait4 waitid waitpid
`)

var arches = []scmp.Arch{scmp.X86_64, scmp.I386, scmp.X32, scmp.AArch64, scmp.ARM, scmp.RISCV64, scmp.PPC64LE, scmp.S390X}

// TestEveryCallIsClassified walks libseccomp's syscall table of every
// arch sysgate names: a call is observed, unobserved with a reason, or
// one that touches no file; never two of these, never none.
func TestEveryCallIsClassified(t *testing.T) {
	if len(arches) != len(scmp.ArchNames()) {
		t.Fatalf("the test walks %d arches, scmp names %d (%v): add the new one", len(arches), len(scmp.ArchNames()), scmp.ArchNames())
	}
	for _, arch := range arches {
		names := scmp.Names(arch)
		if len(names) < 250 {
			t.Fatalf("%s: libseccomp names only %d calls", arch, len(names))
		}
		for _, name := range names {
			_, obs := byName[name]
			reason, unobs := Unobserved[name]
			none := slices.Contains(noFile, name)
			switch n := btoi(obs) + btoi(unobs) + btoi(none); {
			case n == 0:
				t.Errorf("%s: %s is in no list: if it takes a path or a descriptor and can change or reveal a file, observe it (filecalls.observed) or say why not (filecalls.Unobserved); else add it to noFile", arch, name)
			case n > 1:
				t.Errorf("%s: %s is in %d lists (observed %v, unobserved %v, no file %v)", arch, name, n, obs, unobs, none)
			case unobs && len(reason) < 20:
				t.Errorf("%s: %s: the reason %q says nothing", arch, name, reason)
			}
		}
	}
}

// TestTheCallsOfIssue43AreObserved: the calls the fourth red team used,
// by name and through a descriptor, each with the effect both backends
// judge it by.
func TestTheCallsOfIssue43AreObserved(t *testing.T) {
	want := map[string]Naming{
		"fchmodat2": ByPath, "setxattr": ByPath, "lsetxattr": ByPath, "removexattr": ByPath, "lremovexattr": ByPath,
		"utimes": ByPath, "utimensat": PathOrDescriptor, "futimesat": PathOrDescriptor,
		"fchmod": ByDescriptor, "fchown": ByDescriptor, "fsetxattr": ByDescriptor, "fremovexattr": ByDescriptor,
	}
	for name, naming := range want {
		c, ok := Get(name)
		if !ok || c.Effect != Change || c.Naming != naming {
			t.Errorf("%s: got %+v (observed %v), want a change named %d", name, c, ok, naming)
		}
	}
}

// TestObservedCallsExist: every observed call is a call some arch has
// (a misspelt name would be observed nowhere).
func TestObservedCallsExist(t *testing.T) {
	for _, c := range observed {
		found := false
		for _, arch := range arches {
			if _, ok := scmp.Number(arch, c.Name); ok {
				found = true
			}
		}
		if !found || c.Effect == 0 || c.Naming == 0 {
			t.Errorf("%+v: no arch has it, or it has no effect or naming", c)
		}
	}
	for name := range Unobserved {
		if _, ok := byName[name]; ok {
			t.Errorf("%s is observed and unobserved", name)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
