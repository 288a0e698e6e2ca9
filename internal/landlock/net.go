package landlock

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// NetAccess is a set of Landlock network rights (LANDLOCK_ACCESS_NET_*).
// They concern TCP only: a UDP connect or send, and every Unix socket,
// pass whatever the ruleset says.
type NetAccess uint64

// The TCP rights of ABI 4 (Linux 6.7). A handled right is refused, with
// EACCES, for every port no PortRule allows, on IPv4 and IPv6 alike.
const (
	ConnectTCP NetAccess = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	BindTCP    NetAccess = unix.LANDLOCK_ACCESS_NET_BIND_TCP
)

// netABI is the first ABI with TCP port rules.
const netABI = 4

// ruleNetPort is LANDLOCK_RULE_NET_PORT, which x/sys does not define.
const ruleNetPort = 2

// netPortAttr is struct landlock_net_port_attr.
type netPortAttr struct {
	allowedAccess uint64
	port          uint64
}

func (a NetAccess) String() string {
	switch a {
	case ConnectTCP:
		return "connect"
	case BindTCP:
		return "bind"
	case ConnectTCP | BindTCP:
		return "connect and bind"
	case 0:
		return "nothing"
	}
	return fmt.Sprintf("net access %#x", uint64(a))
}

// HandledNet is the network rights a ruleset for abi can handle: connect
// and bind over TCP from ABI 4, none before.
func HandledNet(abi int) NetAccess {
	if abi < netABI {
		return 0
	}
	return ConnectTCP | BindTCP
}

// PortRule allows Access on one TCP port: to every address (connect) or
// on every local address (bind), for every process of the domain.
// Landlock has no rule per address or per program. Port 0 in a bind
// rule allows binding to an ephemeral port.
type PortRule struct {
	Port   uint16
	Access NetAccess
}

// Spec is what a ruleset restricts.
type Spec struct {
	// Files: handle every file-system right of the ABI (HandledAccess)
	// and allow only Paths. Without it the ruleset leaves files alone
	// and Paths must be empty.
	Files bool
	Paths []PathRule
	// Net: the TCP rights to handle and the ports that may still use
	// them (NetRulesFromEntries). Handled 0 leaves the network alone.
	Net NetRules
}

// Build creates a ruleset for abi from spec: the file part as NewRuleset
// builds it, and the network part when spec.Net handles something. A
// network part on a kernel below ABI 4 is an error matching
// ErrNotSupported: check HandledNet first to enforce less instead.
func Build(abi int, spec Spec) (*Ruleset, []Adjustment, error) {
	var fsHandled Access
	if spec.Files {
		fsHandled = HandledAccess(abi)
		if fsHandled == 0 {
			return nil, nil, fmt.Errorf("landlock ruleset: ABI %d: %w", abi, unix.EINVAL)
		}
	} else if len(spec.Paths) > 0 {
		return nil, nil, fmt.Errorf("landlock ruleset: %d path rules but files not handled: %w", len(spec.Paths), unix.EINVAL)
	}
	netHandled := spec.Net.Handled
	if netHandled&^HandledNet(abi) != 0 {
		return nil, nil, &UnsupportedError{
			Feature: fmt.Sprintf("landlock TCP port rules (ABI %d, this kernel has %d)", netABI, abi),
			Fix:     "Linux 6.7 or later",
			Err:     unix.EINVAL,
		}
	}
	if fsHandled == 0 && netHandled == 0 {
		return nil, nil, fmt.Errorf("landlock ruleset: handles nothing: %w", unix.EINVAL)
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: uint64(fsHandled), Handled_access_net: uint64(netHandled)}
	// Only the fields in use: an ABI 1-3 kernel rejects a larger struct
	// with non-zero tails, and a file-only ruleset stays the struct every
	// Landlock kernel knows.
	size := unsafe.Sizeof(attr.Handled_access_fs)
	if netHandled != 0 {
		size = unsafe.Offsetof(attr.Handled_access_net) + unsafe.Sizeof(attr.Handled_access_net)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return nil, nil, os.NewSyscallError("landlock_create_ruleset", errno)
	}
	rs := &Ruleset{fd: int(fd), abi: abi}
	var adjusted []Adjustment
	for _, r := range spec.Paths {
		adj, err := rs.add(fsHandled, r)
		if err != nil {
			return nil, nil, closeWith(rs, fmt.Errorf("landlock rule %s: %w", r.Path, err))
		}
		adjusted = append(adjusted, adj...)
	}
	for _, r := range spec.Net.Ports {
		if err := rs.addPort(netHandled, r); err != nil {
			return nil, nil, closeWith(rs, fmt.Errorf("landlock rule for TCP port %d: %w", r.Port, err))
		}
	}
	return rs, adjusted, nil
}

// addPort adds r's rights that the ruleset handles; a rule with none is
// left out (the kernel refuses an empty one).
func (rs *Ruleset) addPort(handled NetAccess, r PortRule) error {
	access := r.Access & handled
	if access == 0 {
		return nil
	}
	attr := netPortAttr{allowedAccess: uint64(access), port: uint64(r.Port)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rs.fd),
		ruleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return os.NewSyscallError("landlock_add_rule", errno)
	}
	return nil
}
