package netproxy

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Dest is where a socket call goes, as the supervisor read it once from
// the caller's memory and then used itself.
type Dest struct {
	// Family: "inet", "inet6", "unix", or "af<N>" for others (refused).
	Family string
	// Addr: a v4-mapped IPv6 address is given as the IPv4 one.
	Addr netip.Addr
	Port uint16
	// Unix is a path socket's absolute name as this process sees it:
	// for connect and send, the socket the caller's name led to
	// (symlinks followed); for bind, the directory reached joined with
	// the last component. Or an abstract socket's name without the
	// leading NUL; empty for an unnamed one.
	Unix     string
	Abstract bool
}

// String prints host:port, [v6]:port, unix:/path or unix:@abstract,
// with control characters of a Unix name escaped (it is the caller's).
func (d Dest) String() string {
	switch d.Family {
	case "inet", "inet6":
		return netip.AddrPortFrom(d.Addr, d.Port).String()
	case "unix":
		name := strconv.QuoteToASCII(d.Unix)
		name = name[1 : len(name)-1]
		if d.Abstract {
			return "unix:@" + name
		}
		return "unix:" + name
	}
	return d.Family
}

// Access is one socket call the proxy decided on.
type Access struct {
	// Op: connect, bind, listen or send.
	Op      string
	Dest    Dest
	Syscall string
	// Denied: decide refused it (or the proxy did: a family it does not
	// serve); the call failed with EACCES and was not performed.
	Denied bool
}

// sockaddr is a parsed address: what the proxy decides on and the raw
// bytes it passes to the kernel (the same copy).
type sockaddr struct {
	dest Dest
	raw  []byte
	// path: the name of a path Unix socket, "" otherwise.
	path string
}

// parseSockaddr reads the address the kernel would take from raw (the
// addrlen bytes the caller passed). An address the kernel would refuse
// (too short) fails with EINVAL as the kernel's own check would.
func parseSockaddr(raw []byte) (sockaddr, error) {
	if len(raw) < 2 {
		return sockaddr{}, unix.EINVAL
	}
	fam := binary.NativeEndian.Uint16(raw)
	sa := sockaddr{raw: raw}
	switch fam {
	case unix.AF_INET:
		if len(raw) < unix.SizeofSockaddrInet4 {
			return sockaddr{}, unix.EINVAL
		}
		sa.dest = Dest{Family: "inet", Port: binary.BigEndian.Uint16(raw[2:]), Addr: netip.AddrFrom4([4]byte(raw[4:8]))}
	case unix.AF_INET6:
		// SIN6_LEN_RFC2133: the kernel takes a sockaddr_in6 without
		// sin6_scope_id (24 bytes), and reads no scope id from it.
		if len(raw) < sizeofSockaddrInet6RFC2133 {
			return sockaddr{}, unix.EINVAL
		}
		// A v4-mapped address reaches the v4 host: decided as that
		// host, so ::ffff:127.0.0.2 is no way around a rule on 127.0.0.2.
		sa.dest = Dest{Family: "inet6", Port: binary.BigEndian.Uint16(raw[2:]), Addr: netip.AddrFrom16([16]byte(raw[8:24])).Unmap()}
	case unix.AF_UNIX:
		name := raw[2:]
		sa.dest = Dest{Family: "unix"}
		if len(name) > 0 && name[0] == 0 {
			sa.dest.Abstract = true
			sa.dest.Unix = string(name[1:])
			break
		}
		// A path name ends at its first NUL, as the kernel reads it.
		if i := strings.IndexByte(string(name), 0); i >= 0 {
			name = name[:i]
		}
		sa.path = string(name)
		sa.dest.Unix = sa.path
	default:
		sa.dest = Dest{Family: fmt.Sprintf("af%d", fam)}
	}
	return sa, nil
}

// sizeofSockaddrInet6RFC2133 is SIN6_LEN_RFC2133 (linux/in6.h).
const sizeofSockaddrInet6RFC2133 = 24

// UsedAddr is the address the kernel reaches for a connect or send to
// dst from a socket bound to bound (as getsockname gives it, v4-mapped
// on an IPv6 socket; invalid if unknown or unbound). An unspecified
// destination means this host: 0.0.0.0 (or ::ffff:0.0.0.0) is the
// bound IPv4 address, or 127.0.0.1 if there is none (the IPv4 route
// lookup, ip_route_output_key_hash_rcu); :: is ::1, or 127.0.0.1 for a
// socket bound to a v4-mapped address (tcp_v6_connect,
// ip6_datagram_connect, udpv6_sendmsg). Another dst is itself, IPv4
// for a v4-mapped one.
func UsedAddr(dst, bound netip.Addr) netip.Addr {
	if !dst.IsUnspecified() && !(dst.Is4In6() && dst.Unmap().IsUnspecified()) {
		return dst.Unmap()
	}
	loop4 := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	if dst.Is6() && !dst.Is4In6() {
		if bound.Is4In6() {
			return loop4
		}
		return netip.IPv6Loopback()
	}
	if b := bound.Unmap(); b.Is4() && !b.IsUnspecified() {
		return b
	}
	return loop4
}

// unixSockaddr is a path Unix address for name (relative to the
// thread's cwd), in the raw form connect takes.
func unixSockaddr(name string) []byte {
	raw := make([]byte, 2+len(name)+1)
	binary.NativeEndian.PutUint16(raw, unix.AF_UNIX)
	copy(raw[2:], name)
	return raw
}
