package baseline

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// NetOp is the kind of network call a network entry allows.
type NetOp int

// Network calls. Send is sendto/sendmsg/sendmmsg with an address of its
// own (UDP without connect); Resolve is a name looked up, since a DNS
// query carries data to whoever serves the name.
const (
	NetConnect NetOp = iota + 1
	NetBind
	NetListen
	NetSend
	NetResolve
)

// netOps are the calls in the order a network section lists them.
var netOps = []NetOp{NetConnect, NetBind, NetListen, NetSend, NetResolve}

func (op NetOp) String() string {
	switch op {
	case NetConnect:
		return "connect"
	case NetBind:
		return "bind"
	case NetListen:
		return "listen"
	case NetSend:
		return "send"
	case NetResolve:
		return "resolve"
	}
	return "unknown"
}

// MarshalText writes the call by name, for JSON reports.
func (op NetOp) MarshalText() ([]byte, error) {
	if op < NetConnect || op > NetResolve {
		return nil, fmt.Errorf("network call %d: not one of connect, bind, listen, send, resolve", int(op))
	}
	return []byte(op.String()), nil
}

// UnmarshalText reads a call by name.
func (op *NetOp) UnmarshalText(b []byte) error {
	v, ok := ParseNetOp(string(b))
	if !ok {
		return fmt.Errorf("network call %q: not one of connect, bind, listen, send, resolve", b)
	}
	*op = v
	return nil
}

// ParseNetOp reads "connect", "bind", "listen", "send" or "resolve".
func ParseNetOp(s string) (NetOp, bool) {
	for _, op := range netOps {
		if op.String() == s {
			return op, true
		}
	}
	return 0, false
}

// Destination is where one call went, as the kernel saw it: an address
// and port (with the name a lookup of this run gave it, "" when none
// did), or a Unix socket ("/path", or "@name" for an abstract one). A
// Resolve destination has only Name.
type Destination struct {
	Name string
	Addr netip.Addr
	Port uint16
	Unix string
}

// String is the destination as reports and entries write it: the name
// when a lookup gave one ("api.openai.com:443"), else the address
// ("[::1]:8080"), "unix:/run/x.sock", or a bare name for Resolve.
func (d Destination) String() string {
	switch {
	case d.Unix != "":
		return "unix:" + d.Unix
	case d.Name != "" && !d.Addr.IsValid():
		if d.Port == 0 {
			return d.Name
		}
		return d.Name + ":" + strconv.Itoa(int(d.Port))
	case d.Name != "":
		return d.Name + ":" + strconv.Itoa(int(d.Port))
	}
	return hostPort(d.Addr, strconv.Itoa(int(d.Port)))
}

// Key is the form an observation keeps: String, plus the address after
// "=" when a name is known ("api.openai.com=104.18.7.192:443"), so that
// class entries (loopback:*) still match a named destination.
func (d Destination) Key() string {
	if d.Name != "" && d.Addr.IsValid() {
		return d.Name + "=" + hostPort(d.Addr, strconv.Itoa(int(d.Port)))
	}
	return d.String()
}

func hostPort(a netip.Addr, port string) string {
	if a.Is6() && !a.Is4In6() {
		return "[" + a.String() + "]:" + port
	}
	return a.Unmap().String() + ":" + port
}

// ParseDestination reads the form Key writes. It refuses anything else,
// so an observation from a newer sysgate does not lose data silently.
func ParseDestination(s string) (Destination, error) {
	if rest, ok := strings.CutPrefix(s, "unix:"); ok {
		// "{tmp}/x.sock": observations keep paths symbolic, as for files.
		if rest == "" || rest == "@" || !strings.HasPrefix(rest, "@") && cleanObserved(rest) != rest {
			return Destination{}, fmt.Errorf("destination %q: a unix socket is unix:/clean/path, unix:{placeholder}/path or unix:@name", s)
		}
		return Destination{Unix: rest}, nil
	}
	var d Destination
	if name, addr, ok := strings.Cut(s, "="); ok {
		if !validName(name) {
			return Destination{}, fmt.Errorf("destination %q: %q is not a DNS name", s, name)
		}
		d.Name, s = name, addr
	}
	host, port, hasPort := splitHostPort(s)
	if a, err := netip.ParseAddr(host); err == nil && !strings.Contains(a.String(), "%") {
		d.Addr = a.Unmap()
	} else if d.Name == "" && validName(host) {
		d.Name = host
	} else {
		return Destination{}, fmt.Errorf("destination %q: %q is neither an address nor a DNS name", s, host)
	}
	if !hasPort {
		if d.Addr.IsValid() {
			return Destination{}, fmt.Errorf("destination %q: an address needs a port", s)
		}
		return d, nil
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return Destination{}, fmt.Errorf("destination %q: port %q is not a number from 0 to 65535", s, port)
	}
	d.Port = uint16(n)
	return d, nil
}

// splitHostPort splits "host:port" and "[v6]:port"; a bare host or a
// bare "[v6]" has no port.
func splitHostPort(s string) (host, port string, ok bool) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return s, "", false
		}
		host, rest := s[1:end], s[end+1:]
		port, ok := strings.CutPrefix(rest, ":")
		return host, port, ok
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// validName: a DNS name as lookups return it, lowercase letters, digits,
// "-", "_" and dots, no empty label; at most 253 characters.
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// NetClass is a named set of addresses, for what cannot be named.
type NetClass string

// Address classes. Each address is in exactly one (AddrClass): metadata
// is taken out of link-local and private, so that "link-local:*" never
// quietly allows the cloud's credential service; any is the unspecified
// address, which a bind uses to listen on every interface.
const (
	ClassLoopback  NetClass = "loopback"
	ClassPrivate   NetClass = "private"
	ClassLinkLocal NetClass = "link-local"
	ClassMetadata  NetClass = "metadata"
	ClassAny       NetClass = "any"
	ClassPublic    NetClass = "public"
)

var netClasses = []NetClass{ClassLoopback, ClassPrivate, ClassLinkLocal, ClassMetadata, ClassAny, ClassPublic}

// metadataAddrs are the cloud instance-metadata services: AWS, GCP,
// Azure, OpenStack (169.254.169.254) and AWS's IPv6 one.
var metadataAddrs = []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254")}

// AddrClass is the class of an address.
func AddrClass(a netip.Addr) NetClass {
	a = a.Unmap()
	for _, m := range metadataAddrs {
		if a == m {
			return ClassMetadata
		}
	}
	switch {
	case a.IsLoopback():
		return ClassLoopback
	case a.IsUnspecified():
		return ClassAny
	case a.IsPrivate():
		return ClassPrivate
	case a.IsLinkLocalUnicast():
		return ClassLinkLocal
	}
	return ClassPublic
}

func parseClass(s string) (NetClass, bool) {
	for _, c := range netClasses {
		if string(c) == s {
			return c, true
		}
	}
	return "", false
}

// netPattern is a compiled network entry pattern. Exactly one of unix,
// class, addr or name is set (none for a malformed pattern).
type netPattern struct {
	unix  string     // "/glob" or "@glob"
	class NetClass   // loopback, private, ...
	addr  netip.Addr // a literal address
	name  []string   // a DNS name's labels; "*" matches one label
	// port: portAny for "*", portRun for "{port}", else the number.
	port int
}

const (
	portAny = -1
	portRun = -2
	// portNone: a resolve pattern has no port.
	portNone = -3
)

// compileNetPattern reads a written pattern; the error says what is
// wrong, for validate.
func compileNetPattern(s string, op NetOp) (netPattern, error) {
	if rest, ok := strings.CutPrefix(s, "unix:"); ok {
		if op == NetResolve {
			return netPattern{}, fmt.Errorf("resolve takes a DNS name, not a unix socket")
		}
		if strings.HasPrefix(rest, "@") {
			if len(rest) == 1 {
				return netPattern{}, fmt.Errorf("an abstract socket needs a name after @")
			}
			return netPattern{unix: rest}, nil
		}
		if problem := globProblem(rest); problem != "" {
			return netPattern{}, fmt.Errorf("unix socket path: %s", problem)
		}
		return netPattern{unix: rest}, nil
	}
	if op == NetResolve {
		if !validNameGlob(s) {
			return netPattern{}, fmt.Errorf("resolve takes a DNS name (lowercase, \"*\" for a whole label), without a port")
		}
		return netPattern{name: strings.Split(s, "."), port: portNone}, nil
	}
	host, port, ok := splitHostPort(s)
	if !ok || port == "" {
		return netPattern{}, fmt.Errorf("write host:port (a number, \"*\" or \"{port}\"), or unix:/path")
	}
	var p netPattern
	switch port {
	case "*":
		p.port = portAny
	case "{port}":
		p.port = portRun
	default:
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return netPattern{}, fmt.Errorf("port %q: write a number from 0 to 65535, \"*\" or \"{port}\"", port)
		}
		p.port = int(n)
	}
	if c, ok := parseClass(host); ok {
		p.class = c
	} else if a, err := netip.ParseAddr(host); err == nil && a.Zone() == "" {
		if a.Is6() && !a.Is4In6() && !strings.HasPrefix(s, "[") {
			return netPattern{}, fmt.Errorf("write an IPv6 address in brackets: [%s]:%s", host, port)
		}
		p.addr = a.Unmap()
	} else if validNameGlob(host) {
		p.name = strings.Split(host, ".")
	} else {
		return netPattern{}, fmt.Errorf("%q is neither a class (%s), an address nor a lowercase DNS name", host, classList())
	}
	// A port the run chose is only safe where nothing else listens for
	// the agent: on loopback a new port is the agent's own test server;
	// elsewhere "any port" would be a whole host.
	if p.port == portRun && !p.loopbackOnly() {
		return netPattern{}, fmt.Errorf("{port} (a port chosen at run time) is only allowed on loopback addresses: write a port or \"*\"")
	}
	return p, nil
}

func classList() string {
	names := make([]string, len(netClasses))
	for i, c := range netClasses {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// validNameGlob: a DNS name whose labels may each be "*".
func validNameGlob(s string) bool {
	return validName(strings.ReplaceAll(s, "*", "x")) && !strings.Contains(strings.ReplaceAll(s, ".", ""), "**")
}

func (p netPattern) loopbackOnly() bool {
	return p.class == ClassLoopback || (p.addr.IsValid() && p.addr.IsLoopback())
}

// broad: the pattern covers hosts no one wrote down: a glob, or a class
// beyond loopback ("public:443" is every web server there is).
func (p netPattern) broad() bool {
	return p.isGlob() || (p.class != "" && p.class != ClassLoopback)
}

// isGlob: the pattern covers names or paths no one wrote down.
func (p netPattern) isGlob() bool {
	if p.unix != "" {
		return strings.ContainsAny(p.unix, "*?")
	}
	for _, l := range p.name {
		if strings.Contains(l, "*") {
			return true
		}
	}
	return false
}

// matches reports whether d is allowed by the pattern; expanded are the
// unix pattern's paths with placeholders replaced.
func (p netPattern) matches(d Destination, unixGlobs []glob) bool {
	if p.unix != "" {
		if d.Unix == "" {
			return false
		}
		if strings.HasPrefix(p.unix, "@") {
			return strings.HasPrefix(d.Unix, "@") && matchWild([]byte(p.unix), []byte(d.Unix))
		}
		name := splitPath(d.Unix)
		for _, g := range unixGlobs {
			if g.match(name) {
				return true
			}
		}
		return false
	}
	if d.Unix != "" {
		return false
	}
	if p.port == portNone {
		return d.Name != "" && p.nameMatches(d.Name)
	}
	if !p.portMatches(d) {
		return false
	}
	switch {
	case p.class != "":
		return d.Addr.IsValid() && AddrClass(d.Addr) == p.class
	case p.addr.IsValid():
		return d.Addr.IsValid() && d.Addr.Unmap() == p.addr
	}
	return d.Name != "" && p.nameMatches(d.Name)
}

func (p netPattern) portMatches(d Destination) bool {
	switch p.port {
	case portAny:
		return true
	case portRun:
		return d.Addr.IsValid() && d.Addr.Unmap().IsLoopback()
	}
	return int(d.Port) == p.port
}

// nameMatches compares label by label: "*" is one whole label, so
// "*.github.com" is not "github.com" nor "a.b.github.com".
func (p netPattern) nameMatches(name string) bool {
	labels := strings.Split(strings.TrimSuffix(strings.ToLower(name), "."), ".")
	if len(labels) != len(p.name) {
		return false
	}
	for i, l := range p.name {
		if l != "*" && l != labels[i] {
			return false
		}
	}
	return true
}
