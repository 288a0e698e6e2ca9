package dnsrec

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// TestRunResolversUseForwarder gives programs the run's resolv.conf and
// nsswitch.conf in a mount namespace of their own, as a run gets them, and
// checks that glibc (getent), c-ares (Node's dns.resolve4) and Go's own
// resolver all ask the forwarder on 127.53.0.x port 53.
func TestRunResolversUseForwarder(t *testing.T) {
	testutil.RequireRoot(t)
	unshare := testutil.RequireCommand(t, "unshare", "a mount namespace for the run's resolv.conf")
	up := startUpstream(t)
	f, err := Start([]string{up.addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	dir := t.TempDir()
	resolv := filepath.Join(dir, "resolv.conf")
	nss, err := os.ReadFile("/etc/nsswitch.conf")
	if err != nil {
		t.Fatal(err)
	}
	nsswitch := filepath.Join(dir, "nsswitch.conf")
	if err := os.WriteFile(resolv, ResolvConf(f.Addr().Addr()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nsswitch, NsswitchHosts(nss), 0o644); err != nil {
		t.Fatal(err)
	}
	clients := map[string][]string{
		"glibc.clients.test": {testutil.RequireCommand(t, "getent", "glibc's resolver"), "ahostsv4", "glibc.clients.test"},
		"cares.clients.test": {testutil.RequireCommand(t, "node", "c-ares"), "-e",
			`require("dns").resolve4("cares.clients.test", (e, a) => { if (e) throw e; console.log(a.join()) })`},
		"go.clients.test": {os.Args[0], "-test.run=^TestHelperGoLookup$"},
	}
	for name, argv := range clients {
		script := `mount --bind "$1" /etc/resolv.conf && mount --bind "$2" /etc/nsswitch.conf && shift 2 && exec "$@"`
		cmd := exec.Command(unshare, append([]string{"-m", "--propagation", "private", "sh", "-c", script, "sh", resolv, nsswitch}, argv...)...)
		cmd.Env = append(os.Environ(), "DNSREC_GO_LOOKUP="+name)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "192.0.2.50") {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
		if !slices.ContainsFunc(f.Queries(), func(q Query) bool { return q.Name == name && q.Type == "A" }) {
			t.Errorf("%s: the forwarder recorded no A query for it", name)
		}
	}
}

// TestHelperGoLookup is the Go client of TestRunResolversUseForwarder, run
// in its mount namespace; it does nothing on its own.
func TestHelperGoLookup(t *testing.T) {
	name := os.Getenv("DNSREC_GO_LOOKUP")
	if name == "" {
		t.Skip("helper process of TestRunResolversUseForwarder")
	}
	r := &net.Resolver{PreferGo: true}
	addrs, err := r.LookupHost(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(strings.Join(addrs, ",") + "\n")
}

// TestStartWithoutPrivilege runs Start as nobody (without
// CAP_NET_BIND_SERVICE, with ip_unprivileged_port_start above 53): it must
// fail with ErrPort53, not fall back to a port resolv.conf cannot name.
func TestStartWithoutPrivilege(t *testing.T) {
	if os.Getenv("DNSREC_AS_NOBODY") != "" {
		_, err := Start([]string{"127.0.0.1"})
		if !errors.Is(err, ErrPort53) {
			t.Fatalf("Start without privilege: %v, want ErrPort53", err)
		}
		os.Stdout.WriteString("ErrPort53 as expected: " + err.Error() + "\n")
		return
	}
	testutil.RequireRoot(t)
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start")
	if err != nil {
		t.Fatal(err)
	}
	if first, err := strconv.Atoi(strings.TrimSpace(string(raw))); err != nil || first <= 53 {
		t.Skipf("[kernel]: ip_unprivileged_port_start %q: anyone may bind port 53 here", raw)
	}
	setpriv := testutil.RequireCommand(t, "setpriv", "to drop root for the test")
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
		os.Args[0], "-test.run=^TestStartWithoutPrivilege$", "-test.v")
	cmd.Env = append(os.Environ(), "DNSREC_AS_NOBODY=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ErrPort53 as expected") {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody: %s", out)
}
