package harness

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/landlock"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

func TestNetEnforceNote(t *testing.T) {
	c := func(p string) landlock.NetEntry { return landlock.NetEntry{Access: landlock.ConnectTCP, Pattern: p} }
	b := func(p string) landlock.NetEntry { return landlock.NetEntry{Access: landlock.BindTCP, Pattern: p} }
	for _, tc := range []struct {
		name    string
		entries []landlock.NetEntry
		want    string
	}{{
		name:    "ports for both",
		entries: []landlock.NetEntry{c("api.openai.com:443"), b("127.0.0.1:0")},
		want: "enforce refuses TCP connects and binds outside the network section's ports, to any address and by any program " +
			"(a Landlock rule is per port, not per address or program): listens, UDP and Unix sockets are reported, not refused",
	}, {
		name:    "a run-time port",
		entries: []landlock.NetEntry{c("api.openai.com:443"), b("127.0.0.1:{port}")},
		want: "enforce refuses TCP connects outside the network section's ports, to any address and by any program " +
			"(a Landlock rule is per port, not per address or program): TCP binds (127.0.0.1:{port}: " + landlock.UnhandledRunPort +
			"), listens, UDP and Unix sockets are reported, not refused",
	}, {
		name:    "nothing expressible",
		entries: []landlock.NetEntry{c("loopback:*"), b("127.0.0.1:{port}")},
		want: "enforce refuses no socket call outside the network section (Landlock cannot express it): TCP connects (loopback:*: " +
			landlock.UnhandledAnyPort + "), TCP binds (127.0.0.1:{port}: " + landlock.UnhandledRunPort +
			"), listens, UDP and Unix sockets are reported, not refused",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := netEnforceNote(landlock.NetRulesFromEntries(tc.entries)); got != tc.want {
				t.Errorf("note\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestLandlockNetEntriesKeepsConnectAndBind(t *testing.T) {
	got := landlockNetEntries([]baseline.NetworkEntry{
		{Op: baseline.NetConnect, Pattern: "api.github.com:443", By: "/usr/bin/git"},
		{Op: baseline.NetBind, Pattern: "loopback:0"},
		{Op: baseline.NetListen, Pattern: "loopback:*"},
		{Op: baseline.NetSend, Pattern: "127.0.0.53:53"},
		{Op: baseline.NetResolve, Pattern: "api.openai.com"},
	})
	want := []landlock.NetEntry{
		{Access: landlock.ConnectTCP, Pattern: "api.github.com:443", By: "/usr/bin/git"},
		{Access: landlock.BindTCP, Pattern: "loopback:0"},
	}
	if len(got) != len(want) {
		t.Fatalf("entries %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// Enforce refuses a TCP connect to a destination outside the network
// section with EACCES, on both backends (Landlock is applied on both),
// and reports the refusal: both listeners are up, and the record run
// connected to both. The refused one is on another address and another
// port, since Landlock's rules are per port: on the audit backend the
// port is what refuses it.
func TestEnforceRefusesConnectOutsideTheNetworkSection(t *testing.T) {
	t.Parallel()
	if abi, err := landlock.ABI(); err != nil || landlock.HandledNet(abi) == 0 {
		testutil.RequireFile(t, "/sys/kernel/security/landlock", "Landlock disabled or missing")
		t.Fatalf("Landlock ABI %d (err %v): TCP port rules need ABI 4", abi, err)
	}
	listen := func(addr string) string {
		l, err := net.Listen("tcp4", addr+":0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l.Addr().String()
	}
	allowed := listen("127.0.0.1")
	other := listen("127.0.0.2")
	port := func(dest string) string { _, p, _ := net.SplitHostPort(dest); return p }
	for port(other) == port(allowed) {
		// The same port would pass Landlock: another one.
		other = listen("127.0.0.2")
	}
	py := testutil.Python(t)
	script := `import errno, socket, sys
for d in sys.argv[1:]:
    host, port = d.rsplit(":", 1)
    s = socket.socket()
    try:
        s.connect((host, int(port)))
        print(d, "ok")
    except OSError as e:
        print(d, errno.errorcode.get(e.errno, e.errno))
    s.close()
`
	agent := func(out *bytes.Buffer) Agent {
		return Agent{Name: "connect", Command: []string{py, "-I", "-c", script, allowed, other}, Stdout: out}
	}
	var recorded bytes.Buffer
	// Recorded without the network, so the file gets the section below.
	r := mustRun(t, agent(&recorded), WithoutNetwork())
	if r.Verdict != verdict.VerdictClean || recorded.String() != allowed+" ok\n"+other+" ok\n" {
		t.Fatalf("record: %s\n%s", summary(r), recorded.String())
	}
	path := netBaseline(t, r.Observed, false, baseline.NetworkEntry{Op: baseline.NetConnect, Pattern: allowed})
	const line = "enforce refuses TCP connects and binds outside the network section's ports"
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		var enforced bytes.Buffer
		r = mustRun(t, agent(&enforced), WithBaselines(path), WithMode(baseline.ModeEnforce), WithBackend(backend))
		if want := allowed + " ok\n" + other + " EACCES\n"; enforced.String() != want {
			t.Errorf("%s: enforce: agent printed %q, want %q (%s)", backend, enforced.String(), want, summary(r))
		}
		if len(r.NetworkViolations) != 1 || r.NetworkViolations[0].Op != baseline.NetConnect || r.NetworkViolations[0].Dest != other || !r.NetworkViolations[0].Denied {
			t.Errorf("%s: enforce: network violations %v, want the refused connect %s alone, denied", backend, r.NetworkViolations, other)
		}
		if r.Verdict != verdict.VerdictViolation {
			t.Errorf("%s: enforce: %s, want a violation: a refused connect is reported", backend, summary(r))
		}
		// The notify backend's listener refuses what Landlock does not:
		// nothing weakened there.
		weakened := strings.Join(r.Weakened, "\n")
		if strings.Contains(weakened, line) != (backend == verdict.BackendAudit) {
			t.Errorf("%s: weakened %q: want the network line on the audit backend only", backend, r.Weakened)
		}
	}
}
