package dnsrec

import (
	"context"
	"errors"
	"fmt"
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
		"go.clients.test": {os.Args[0]},
	}
	for name, argv := range clients {
		script := `mount --bind "$1" /etc/resolv.conf && mount --bind "$2" /etc/nsswitch.conf && shift 2 && exec "$@"`
		cmd := exec.Command(unshare, append([]string{"-m", "--propagation", "private", "sh", "-c", script, "sh", resolv, nsswitch}, argv...)...)
		cmd.Env = append(os.Environ(), goLookupEnv+"="+name)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "192.0.2.50") {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
		if !slices.ContainsFunc(f.Queries(), func(q Query) bool { return q.Name == name && q.Type == "A" }) {
			t.Errorf("%s: the forwarder recorded no A query for it", name)
		}
	}
}

// The test binary doubles as two children: with goLookupEnv set it looks
// a name up with Go's own resolver (for TestRunResolversUseForwarder), with
// nobodyEnv set it tries Start without privilege (TestStartWithoutPrivilege).
const (
	goLookupEnv = "SYSGATE_DNSREC_GO_LOOKUP"
	nobodyEnv   = "SYSGATE_DNSREC_AS_NOBODY"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(goLookupEnv); name != "" {
		addrs, err := (&net.Resolver{PreferGo: true}).LookupHost(context.Background(), name)
		exitWith(strings.Join(addrs, ","), err)
	}
	if os.Getenv(nobodyEnv) != "" {
		_, err := Start([]string{"127.0.0.1"})
		if errors.Is(err, ErrPort53) {
			exitWith("ErrPort53 as expected: "+err.Error(), nil)
		}
		exitWith("", fmt.Errorf("start without privilege: %v, want ErrPort53", err))
	}
	os.Exit(m.Run())
}

func exitWith(out string, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(out)
	os.Exit(0)
}

// TestStartWithoutPrivilege runs Start as nobody (without
// CAP_NET_BIND_SERVICE, with ip_unprivileged_port_start above 53): it must
// fail with ErrPort53, not fall back to a port resolv.conf cannot name.
func TestStartWithoutPrivilege(t *testing.T) {
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
		os.Args[0])
	cmd.Env = append(os.Environ(), nobodyEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ErrPort53 as expected") {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody: %s", out)
}
