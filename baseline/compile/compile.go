//go:build linux && cgo

package compile

import (
	"fmt"
	"sync"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/scmp"
)

// Compile turns a profile into a seccomp BPF program for mode:
//
//   - record:  every syscall LOG (p may be nil);
//   - check:   the profile's syscalls ALLOW, everything else LOG;
//   - enforce: the profile's syscalls ALLOW, everything else ERRNO(EPERM)
//     or KILL_PROCESS (opts.Action).
//
// In every mode the channels the filter cannot see (Channels) are refused
// with their errno unless the profile names them unmonitored (in record
// mode, p is the bases the recorded file extends). Record never writes a
// refused call into a baseline.
//
// The filter covers the native arch and every arch with a section in p.
// A syscall of any other ABI (int $0x80 on x86_64, an x32 number) gets LOG
// in record and check, so it shows up in the log instead of killing the
// agent, and the enforce action in enforce mode. Compile does not load the
// filter: the harness installs Program itself as its last step before
// execve.
//
// Argument classes: an allowed class is allowed by masked comparisons of
// its syscall's register arguments. Under the audit backend a classed
// syscall's other calls go to the run's listener (Filter.Notifies), which
// names their class; the default is then USER_NOTIF, and every other
// syscall gets the mode's action by a rule of its own (libseccomp lets an
// unconditional rule override a syscall's conditional ones, so "this class
// allowed, the rest notified" takes the default).
func Compile(p *baseline.Profile, mode baseline.Mode, opts Options) (*Filter, error) {
	p = p.WithScheduling(opts.Scheduling)
	other, badArch, err := actions(mode, opts)
	if err != nil {
		return nil, err
	}
	l := layout{other: other, def: other, notifyBackend: opts.Notify, argBlind: opts.ArgBlind, programs: opts.Programs}
	if opts.Notify && len(opts.ProxiedCalls) > 0 {
		l.fileCalls = map[string]bool{}
		for _, name := range opts.ProxiedCalls {
			l.fileCalls[name] = true
		}
	}
	if !opts.Notify && !opts.ArgBlind {
		l.def = seccomp.ActNotify
	}
	if !opts.Linear && !treeSupported() {
		opts.Linear = true
	}
	native := scmp.Native()
	if !native.Valid() {
		return nil, fmt.Errorf("%w: native architecture not supported", ErrCompile)
	}
	arches := []scmp.Arch{native}
	if mode != baseline.ModeRecord {
		for _, a := range p.Arches() {
			if a != native {
				arches = append(arches, a)
			}
		}
	}
	implied := map[scmp.Arch]map[string]string{}
	prog, err := exportMerged(mode.String(), arches, func(arch scmp.Arch) (*seccomp.ScmpFilter, error) {
		implied[arch] = map[string]string{}
		return archFilter(p, mode, arch, native, l, badArch, opts, implied[arch])
	})
	if err != nil {
		return nil, err
	}
	listener, err := compileListener(p, mode, arches)
	if err != nil {
		return nil, err
	}
	return &Filter{Mode: mode, Tree: !opts.Linear, Arches: arches, Program: prog, Listener: listener,
		Notifies: l.def == seccomp.ActNotify || opts.Programs, Implied: implied}, nil
}

// layout says which action a filter takes where.
type layout struct {
	// other is the mode's action for what the profile does not allow
	// (LOG, enforce's ERRNO or KILL, or USER_NOTIF under notify).
	other seccomp.ScmpAction
	// def is the filter's default: other, or USER_NOTIF when classed
	// syscalls go to the listener and every other syscall has a rule.
	def           seccomp.ScmpAction
	notifyBackend bool
	argBlind      bool
	programs      bool // execs go to the listener (Options.Programs)
	// fileCalls always go to the listener (Options.ProxiedCalls, notify).
	fileCalls map[string]bool
}

// programCalls are the calls the listener sees for the programs: those
// that start a program, and exit_group, the last call of a program that
// ends on its own: an exec's program can run, exit and be reaped between
// two looks of the harness's watcher (7 of 600 short execs on audit,
// issue 46), but not before the listener has answered its exit_group,
// while /proc still shows it.
var programCalls = []string{"execve", "execveat", "exit_group"}

func isProgramCall(name string) bool {
	return name == "execve" || name == "execveat" || name == "exit_group"
}

// execNotified reports whether the filter sends name's calls to the
// listener for the programs they run: an exec that enforce refuses is
// refused in the kernel.
func (l layout) execNotified(p *baseline.Profile, mode baseline.Mode, arch scmp.Arch, name string) bool {
	return l.programs && isProgramCall(name) && (mode != baseline.ModeEnforce || p.Allows(arch, name))
}

// listed: the default is the listener's, and other is set per syscall.
func (l layout) listed() bool { return l.def != l.other }

// treeSupported probes once whether libseccomp can build a binary tree
// (SCMP_FLTATR_CTL_OPTIMIZE, libseccomp >= 2.5).
var treeSupported = sync.OnceValue(func() bool {
	f, err := seccomp.NewFilter(seccomp.ActLog)
	if err != nil {
		return false
	}
	defer f.Release()
	return f.SetOptimize(2) == nil
})

func actions(mode baseline.Mode, opts Options) (def, badArch seccomp.ScmpAction, err error) {
	if opts.Notify {
		switch mode {
		case baseline.ModeRecord, baseline.ModeCheck, baseline.ModeEnforce:
			if mode == baseline.ModeEnforce && opts.Action != 0 && opts.Action != baseline.ActionErrno && opts.Action != baseline.ActionKill {
				return 0, 0, fmt.Errorf("%w: enforce action %s not possible in a filter", ErrCompile, opts.Action)
			}
			return seccomp.ActNotify, seccomp.ActNotify, nil
		}
		return 0, 0, fmt.Errorf("%w: invalid mode %s", ErrCompile, mode)
	}
	switch mode {
	case baseline.ModeRecord, baseline.ModeCheck:
		return seccomp.ActLog, seccomp.ActLog, nil
	case baseline.ModeEnforce:
		switch opts.Action {
		case 0, baseline.ActionErrno:
			a := seccomp.ActErrno.SetReturnCode(int16(unix.EPERM))
			return a, a, nil
		case baseline.ActionKill:
			return seccomp.ActKillProcess, seccomp.ActKillProcess, nil
		}
		return 0, 0, fmt.Errorf("%w: enforce action %s not possible in a filter", ErrCompile, opts.Action)
	}
	return 0, 0, fmt.Errorf("%w: invalid mode %s", ErrCompile, mode)
}

// newArchFilter is an empty filter for arch alone (native is what
// libseccomp starts with) with the default and bad-arch actions set.
func newArchFilter(arch, native scmp.Arch, def, badArch seccomp.ScmpAction) (*seccomp.ScmpFilter, error) {
	f, err := seccomp.NewFilter(def)
	if err != nil {
		return nil, err
	}
	if err := setArch(f, arch, native, badArch); err != nil {
		f.Release()
		return nil, err
	}
	return f, nil
}

func setArch(f *seccomp.ScmpFilter, arch, native scmp.Arch, badArch seccomp.ScmpAction) error {
	if arch != native {
		if err := f.AddArch(arch.Libseccomp()); err != nil {
			return fmt.Errorf("add arch: %w", err)
		}
		if err := f.RemoveArch(native.Libseccomp()); err != nil {
			return fmt.Errorf("remove native arch: %w", err)
		}
	}
	if err := f.SetBadArchAction(badArch); err != nil {
		return fmt.Errorf("bad-arch action: %w", err)
	}
	return nil
}

// archFilter builds a one-arch filter; Compile merges them, because a rule
// added to a multi-arch libseccomp filter applies to every arch, while a
// baseline's sections differ per arch.
func archFilter(p *baseline.Profile, mode baseline.Mode, arch, native scmp.Arch, l layout, badArch seccomp.ScmpAction, opts Options, implied map[string]string) (*seccomp.ScmpFilter, error) {
	f, err := newArchFilter(arch, native, l.def, badArch)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Release()
		}
	}()
	if !opts.Linear {
		if err := f.SetOptimize(2); err != nil {
			return nil, fmt.Errorf("binary tree: %w", err)
		}
	}
	// blind: syscalls allowed with any arguments.
	blind, err := allowEntries(f, p, mode, arch, l)
	if err != nil {
		return nil, err
	}
	for _, c := range baseline.Channels {
		if err := addChannel(f, p, mode, arch, l, c); err != nil {
			return nil, fmt.Errorf("syscall %q: %w", c.Syscall, err)
		}
	}
	if l.listed() {
		// A classed syscall's common class is logged, not notified,
		// unless it is allowed.
		for _, name := range argclass.ClassedSyscalls(arch) {
			common := argclass.CommonClass(arch, name)
			if blind[name] || common == "" {
				continue
			}
			key := argclass.ClassKey(name, common)
			if mode != baseline.ModeRecord && p.Allows(arch, key) {
				continue
			}
			if err := addClass(f, arch, key, l.other); err != nil {
				return nil, fmt.Errorf("syscall %q: %w", key, err)
			}
			implied[name] = common
		}
		// Every syscall that is neither allowed, classed nor a channel
		// gets the mode's action; the default sends the classed ones
		// (and numbers libseccomp cannot name) to the listener.
		for _, name := range scmp.Names(arch) {
			if _, channel := baseline.ChannelOf(name); channel || blind[name] || argclass.HasClasses(arch, name) || l.execNotified(p, mode, arch, name) {
				continue
			}
			call, err := seccomp.GetSyscallFromName(name)
			if err != nil {
				continue // not resolvable: the listener names it by number
			}
			_ = f.AddRule(call, l.other) // a refused rule leaves the call to the listener
		}
	}
	if l.def != seccomp.ActNotify {
		for _, name := range programCalls {
			if !l.execNotified(p, mode, arch, name) {
				continue
			}
			call, err := seccomp.GetSyscallFromName(name)
			if err != nil {
				return nil, fmt.Errorf("syscall %q: %w", name, err)
			}
			if err := f.AddRule(call, seccomp.ActNotify); err != nil {
				return nil, fmt.Errorf("syscall %q: %w", name, err)
			}
		}
	}
	ok = true
	return f, nil
}

// allowEntries allows the profile's entries on arch (none in record
// mode: everything is to be learnt) and returns the syscalls allowed with
// any arguments, which no class rule may narrow.
func allowEntries(f *seccomp.ScmpFilter, p *baseline.Profile, mode baseline.Mode, arch scmp.Arch, l layout) (map[string]bool, error) {
	blind := map[string]bool{}
	if mode == baseline.ModeRecord {
		return blind, nil
	}
	for _, e := range p.Entries(arch) {
		if name, class := argclass.SplitKey(e.Name); class == "" || l.argBlind {
			blind[name] = true
		}
	}
	compiled := map[string]bool{}
	for _, e := range p.Entries(arch) {
		name, class := argclass.SplitKey(e.Name)
		if _, channel := baseline.ChannelOf(name); channel {
			continue // refused, or allowed as unmonitored, by addChannel
		}
		if class != "" && blind[name] {
			// Allowed with any arguments: by its argument-blind
			// entry, or by every entry when classes are off.
			e.Name = name
		}
		if compiled[e.Name] || l.execNotified(p, mode, arch, name) || l.fileCalls[name] {
			continue
		}
		compiled[e.Name] = true
		if err := allowEntry(f, arch, e); err != nil {
			return nil, fmt.Errorf("syscall %q (%s:%d): %w", e.Name, e.File, e.Line, err)
		}
	}
	return blind, nil
}

// allowEntry allows one profile entry: its syscall, or for a class, the
// calls its comparisons select.
func allowEntry(f *seccomp.ScmpFilter, arch scmp.Arch, e baseline.Entry) error {
	name := argclass.SyscallOf(e.Name)
	// The name resolves to a native or pseudo-syscall number that
	// libseccomp translates for the filter's arch.
	call, err := seccomp.GetSyscallFromName(name)
	if err != nil {
		return err
	}
	if argclass.ClassMatch(arch, e.Name) == nil {
		return f.AddRule(call, seccomp.ActAllow)
	}
	return addClass(f, arch, e.Name, seccomp.ActAllow)
}

// addClass gives the calls of a class key action.
func addClass(f *seccomp.ScmpFilter, arch scmp.Arch, key string, action seccomp.ScmpAction) error {
	call, err := seccomp.GetSyscallFromName(argclass.SyscallOf(key))
	if err != nil {
		return err
	}
	for _, cmps := range argclass.ClassMatch(arch, key) {
		conds := make([]seccomp.ScmpCondition, 0, len(cmps))
		for _, c := range cmps {
			cond, err := seccomp.MakeCondition(c.Arg, seccomp.CompareMaskedEqual, c.Mask, c.Value)
			if err != nil {
				return err
			}
			conds = append(conds, cond)
		}
		if err := f.AddRuleConditional(call, action, conds); err != nil {
			return err
		}
	}
	return nil
}

// addChannel refuses a channel the filter cannot see (see Channels), in
// every mode, unless the profile lets it through as unmonitored (in record
// mode: the bases it extends, so what the agent does around its ring is
// recorded too). A listed entry of a channel outside the unmonitored section
// does not open it: seccomp without a listener is what such an entry
// allows, io_uring nothing. The harness loads the filter with
// SECCOMP_FILTER_FLAG_LOG, so a refusal is logged with an ERRNO code and
// reported as refused, not as a syscall.
func addChannel(f *seccomp.ScmpFilter, p *baseline.Profile, mode baseline.Mode, arch scmp.Arch, l layout, c baseline.Channel) error {
	def := l.def
	call, err := seccomp.GetSyscallFromName(c.Syscall)
	if err != nil {
		return err
	}
	if p.IsUnmonitored(arch, c.Syscall) {
		return f.AddRule(call, seccomp.ActAllow)
	}
	refuse := seccomp.ActErrno.SetReturnCode(int16(c.Errno))
	if l.notifyBackend {
		// The notify backend: the listener refuses the call with the
		// channel's errno, and sees it.
		refuse = seccomp.ActNotify
	}
	// libseccomp takes no rule whose action is the default: under
	// enforce's EPERM the default refuses what the rule would (and under
	// notify the listener does).
	refuseByDefault := refuse == def
	if refuseByDefault && !c.Listener {
		return nil
	}
	if !c.Listener {
		return f.AddRule(call, refuse)
	}
	// flags is an unsigned int: the mask's upper half is zero, so what an
	// agent leaves in the register's upper bits cannot dodge the match.
	const listener = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	asks, err := seccomp.MakeCondition(1, seccomp.CompareMaskedEqual, listener, listener)
	if err != nil {
		return err
	}
	if !refuseByDefault {
		if err := f.AddRuleConditional(call, refuse, []seccomp.ScmpCondition{asks}); err != nil {
			return err
		}
	}
	if mode == baseline.ModeRecord || !p.Allows(arch, c.Syscall) {
		// The default action (LOG, enforce's, or the listener, which
		// treats the call as any other outside the profile) has the rest.
		return nil
	}
	without, err := seccomp.MakeCondition(1, seccomp.CompareMaskedEqual, listener, 0)
	if err != nil {
		return err
	}
	return f.AddRuleConditional(call, seccomp.ActAllow, []seccomp.ScmpCondition{without})
}
