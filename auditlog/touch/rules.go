package touch

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/elastic/go-libaudit/v2/auparse"
	"github.com/elastic/go-libaudit/v2/rule"
	"github.com/elastic/go-libaudit/v2/rule/flags"

	"github.com/sysgate/sysgate/internal/filecalls"
)

// Set selects which calls a run's rules record.
type Set uint8

const (
	// Files: calls that name a path the kernel resolves (PATH records).
	Files Set = 1 << iota
	// Network: calls that carry an address the kernel copies (SOCKADDR).
	Network
)

// Arch selects the syscall table a rule covers.
type Arch uint8

const (
	Native Arch = 1 << iota // -F arch=b64
	Compat                  // -F arch=b32 (i386 on x86_64, arm on aarch64)
)

// fileCalls are the one table both file observers watch
// (internal/filecalls): the notify proxy serves the same calls.
var fileCalls = filecalls.Names()

// sendto without an address carries no SOCKADDR; it is kept because one
// with an address is how UDP leaves. socketcall is the 32-bit
// multiplexer of them all (i386 and arm have the direct calls too).
var networkCalls = []string{"connect", "bind", "listen", "sendto", "sendmsg", "sendmmsg", "socketcall"}

// Key is the audit rule key of a run's rules: its records carry it, and
// it names the rules in `auditctl -l`.
func Key(auid uint32) string { return fmt.Sprintf("sysgate-%d", auid) }

// Rules returns the wire format of the exit rules that record the calls
// of set made by processes with login uid auid: per arch, one rule for
// the file calls and one for the network calls. Only successful file
// calls are recorded: failed lookups are noise (an interpreter probes
// hundreds of missing paths) and touched nothing. Network calls are
// recorded whatever they returned: a non-blocking connect fails with
// EINPROGRESS on its way out, a refused one has sent its SYN, and a
// refusal (EACCES) is enforce's to report.
func Rules(auid uint32, set Set, arches Arch) ([][]byte, error) {
	if auid == 0 || auid == ^uint32(0) {
		return nil, fmt.Errorf("audit rules: auid %d does not name a run", auid)
	}
	if set&(Files|Network) == 0 || arches&(Native|Compat) == 0 {
		return nil, errors.New("audit rules: no calls or no arch selected")
	}
	var out [][]byte
	for _, a := range []struct {
		bit  Arch
		flag string
	}{{Native, "b64"}, {Compat, "b32"}} {
		if arches&a.bit == 0 {
			continue
		}
		for _, part := range []struct {
			set     Set
			success string
		}{{Files, " -F success=1"}, {Network, ""}} {
			if set&part.set == 0 {
				continue
			}
			calls, err := callsFor(part.set, a.flag)
			if err != nil {
				return nil, err
			}
			text := fmt.Sprintf("-a always,exit -F arch=%s -S %s -F auid=%d%s -k %s",
				a.flag, strings.Join(calls, ","), auid, part.success, Key(auid))
			r, err := flags.Parse(text)
			if err != nil {
				return nil, fmt.Errorf("audit rule %q: %w", text, err)
			}
			wire, err := rule.Build(r)
			if err != nil {
				return nil, fmt.Errorf("audit rule %q: %w", text, err)
			}
			out = append(out, wire)
		}
	}
	return out, nil
}

// callsFor keeps the calls of set that exist on arch (aarch64 has no
// open, creat, rename, link, ...: only their *at forms).
func callsFor(set Set, flag string) ([]string, error) {
	table, err := syscallTable(flag)
	if err != nil {
		return nil, err
	}
	var want []string
	if set&Files != 0 {
		want = append(want, fileCalls...)
	}
	if set&Network != 0 {
		want = append(want, networkCalls...)
	}
	have := map[string]bool{}
	for _, name := range table {
		have[name] = true
	}
	want = slices.DeleteFunc(want, func(n string) bool { return !have[n] })
	if len(want) == 0 {
		return nil, fmt.Errorf("audit rules: none of the calls exist on arch %s", flag)
	}
	return want, nil
}

func syscallTable(flag string) (map[int]string, error) {
	native := nativeArch()
	name := native
	if flag == "b32" {
		switch native {
		case "x86_64":
			name = "i386"
		case "aarch64":
			name = "arm"
		default:
			return nil, fmt.Errorf("audit rules: no 32-bit arch known for %s", native)
		}
	}
	t, ok := auparse.AuditSyscalls[name]
	if !ok {
		return nil, fmt.Errorf("audit rules: no syscall table for %s", name)
	}
	return t, nil
}

// nativeArch names this build's arch as go-libaudit's tables do.
func nativeArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i386"
	}
	return runtime.GOARCH
}
