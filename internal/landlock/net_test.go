package landlock

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// listenLoopback returns the port of a TCP listener on 127.0.0.1 that
// accepts (in the kernel's backlog) until the test ends.
func listenLoopback(t *testing.T) uint16 {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

func loopback(port uint16) string { return "127.0.0.1:" + strconv.Itoa(int(port)) }

// A ruleset built from a network section's entries: connect only to the
// listed port, bind only to an ephemeral one. Both other listeners are
// up, so without the rules every call here would succeed, except the
// bind to a port in use (EADDRINUSE, not EACCES: Landlock asks first).
// UDP is beyond Landlock's network rules, and a ruleset without a file
// part leaves files alone.
func TestNetRulesetConnectAndBind(t *testing.T) {
	abi := requireABI(t, netABI)
	allowed, other := listenLoopback(t), listenLoopback(t)
	nr := NetRulesFromEntries([]NetEntry{
		{Access: ConnectTCP, Pattern: loopback(allowed)},
		{Access: BindTCP, Pattern: "127.0.0.1:0"},
		{Access: ConnectTCP, Pattern: "unix:/run/x.sock"},
	})
	if nr.Handled != ConnectTCP|BindTCP {
		t.Fatalf("handled %v, want connect and bind", nr.Handled)
	}
	rs, _, err := Build(abi, Spec{Net: nr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	connectOK, connectNo := "connect "+loopback(allowed), "connect "+loopback(other)
	bindEphemeral, bindOther := "bind 127.0.0.1:0", "bind "+loopback(other)
	udp := "udp " + loopback(other)
	read := "read /proc/self/status"
	got := inChild(t, rs, 0, connectOK, connectNo, bindEphemeral, bindOther, udp, read)
	expect(t, got, map[string]string{
		connectOK:     "ok",
		connectNo:     "EACCES",
		bindEphemeral: "ok",
		bindOther:     "EACCES",
		udp:           "ok",
		read:          "ok",
	})
}

// The same calls unrestricted: what the test above would see if the
// ruleset did nothing.
func TestNetCallsUnrestricted(t *testing.T) {
	abi := requireABI(t, netABI)
	other := listenLoopback(t)
	rs, _, err := Build(abi, Spec{Net: NetRules{Handled: ConnectTCP}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	got := inChild(t, rs, noRestrict, "connect "+loopback(other), "bind "+loopback(other))
	expect(t, got, map[string]string{
		"connect " + loopback(other): "ok",
		"bind " + loopback(other):    "EADDRINUSE",
	})
}

// Files and ports in one ruleset: each part refuses what it handles.
func TestNetRulesetWithFiles(t *testing.T) {
	abi := requireABI(t, netABI)
	allowed, other := listenLoopback(t), listenLoopback(t)
	d := tree(t)
	rs, _, err := Build(abi, Spec{Files: true, Paths: treeRules(d),
		Net: NetRules{Handled: ConnectTCP, Ports: []PortRule{{Port: allowed, Access: ConnectTCP}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	readRO, readOut := "read "+d+"/ro/f", "read "+d+"/out/f"
	got := inChild(t, rs, 0, "connect "+loopback(allowed), "connect "+loopback(other), readRO, readOut)
	expect(t, got, map[string]string{
		"connect " + loopback(allowed): "ok",
		"connect " + loopback(other):   "EACCES",
		readRO:                         "ok",
		readOut:                        "EACCES",
	})
}

func TestBuildRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		abi  int
		spec Spec
		is   error
	}{
		{"nothing handled", 7, Spec{}, unix.EINVAL},
		{"paths without files", 7, Spec{Paths: []PathRule{{Path: "/", Read: true}}}, unix.EINVAL},
		{"ports before ABI 4", 3, Spec{Net: NetRules{Handled: ConnectTCP}}, ErrNotSupported},
		{"an unknown right", 7, Spec{Net: NetRules{Handled: 1 << 40}}, ErrNotSupported},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, _, err := Build(c.abi, c.spec)
			if rs != nil {
				rs.Close()
			}
			if !errors.Is(err, c.is) {
				t.Fatalf("Build = %v, want %v", err, c.is)
			}
		})
	}
}

func TestHandledNet(t *testing.T) {
	for abi, want := range map[int]NetAccess{0: 0, 3: 0, 4: ConnectTCP | BindTCP, 7: ConnectTCP | BindTCP} {
		if got := HandledNet(abi); got != want {
			t.Errorf("HandledNet(%d) = %v, want %v", abi, got, want)
		}
	}
}

func ExampleNetRulesFromEntries() {
	nr := NetRulesFromEntries([]NetEntry{
		{Access: ConnectTCP, Pattern: "api.openai.com:443"},
		{Access: ConnectTCP, Pattern: "api.github.com:443", By: "/usr/bin/git"},
		{Access: BindTCP, Pattern: "127.0.0.1:{port}"},
	})
	fmt.Println("handled:", nr.Handled)
	for _, p := range nr.Ports {
		fmt.Println("port", p.Port, p.Access)
	}
	for _, n := range nr.Widened {
		fmt.Printf("widened: %s: %s\n", n.Entry, n.Reason)
	}
	for _, n := range nr.Unhandled {
		fmt.Printf("unhandled: %s: %s\n", n.Entry, n.Reason)
	}
	// Output:
	// handled: connect
	// port 443 connect
	// widened: connect api.openai.com:443: Landlock allows the port to every address
	// widened: connect api.github.com:443 by /usr/bin/git: Landlock allows the port to every address and every program
	// unhandled: bind 127.0.0.1:{port}: a port chosen at run time: unknown when the ruleset is built
}
