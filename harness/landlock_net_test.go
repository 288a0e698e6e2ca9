package harness

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/landlock"
	"github.com/sysgate/sysgate/internal/testutil"
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

// Enforce refuses a TCP connect to a port outside the network section
// with EACCES, on both backends (Landlock is applied on both): both
// listeners are up, and the record run connected to both.
func TestEnforceRefusesConnectOutsideTheNetworkSection(t *testing.T) {
	t.Parallel()
	if abi, err := landlock.ABI(); err != nil || landlock.HandledNet(abi) == 0 {
		testutil.RequireFile(t, "/sys/kernel/security/landlock", "Landlock disabled or missing")
		t.Fatalf("Landlock ABI %d (err %v): TCP port rules need ABI 4", abi, err)
	}
	port := func() string {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	}
	allowed, other := port(), port()
	py := testutil.Python(t)
	script := `import errno, socket, sys
for p in sys.argv[1:]:
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", int(p)))
        print(p, "ok")
    except OSError as e:
        print(p, errno.errorcode.get(e.errno, e.errno))
    s.close()
`
	agent := func(out *bytes.Buffer) Agent {
		return Agent{Name: "connect", Command: []string{py, "-I", "-c", script, allowed, other}, Stdout: out}
	}
	var recorded bytes.Buffer
	// Recorded without the network, so the file gets the section below.
	r := mustRun(t, agent(&recorded), WithoutNetwork())
	if r.Verdict != VerdictClean || recorded.String() != allowed+" ok\n"+other+" ok\n" {
		t.Fatalf("record: %s\n%s", r.Summary(), recorded.String())
	}
	path := filepath.Join(t.TempDir(), "connect.yaml")
	if _, err := baseline.WriteRecorded(path, r.Observed, baseline.RecordOptions{Agent: "connect"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("network:\n  connect:\n    - 127.0.0.1:" + allowed + "\n")
	if err := errors.Join(err, f.Close()); err != nil {
		t.Fatal(err)
	}
	const line = "enforce refuses TCP connects and binds outside the network section's ports"
	for _, backend := range []Backend{BackendAudit, BackendNotify} {
		var enforced bytes.Buffer
		r = mustRun(t, agent(&enforced), WithBaselines(path), WithMode(baseline.ModeEnforce), WithBackend(backend))
		if want := allowed + " ok\n" + other + " EACCES\n"; enforced.String() != want {
			t.Errorf("%s: enforce: agent printed %q, want %q (%s)", backend, enforced.String(), want, r.Summary())
		}
		// The notify backend's listener refuses what Landlock does not:
		// nothing weakened there.
		weakened := strings.Join(r.Weakened, "\n")
		if strings.Contains(weakened, line) != (backend == BackendAudit) {
			t.Errorf("%s: weakened %q: want the network line on the audit backend only", backend, r.Weakened)
		}
	}
}
