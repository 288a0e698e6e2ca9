package cli

import (
	"encoding/json"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
)

// baseline diff lists the network entries only one side has, a risky new
// one marked with why.
func TestBaselineDiffNetwork(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.yaml")
	cur := filepath.Join(dir, "new.yaml")
	writeTestFile(t, old, "version: 1\nagent: a\nnetwork:\n  connect:\n    - \"127.0.0.1:{port}\"\n  bind:\n    - loopback:0\nsyscalls:\n  x86_64: [read]\n")
	writeTestFile(t, cur, "version: 1\nagent: a\nnetwork:\n  connect:\n    - \"127.0.0.1:{port}\"\n    - {path: api.github.com:443, by: /usr/bin/git}\n"+
		"    - path: 169.254.169.254:80\n      reason: the instance's role\nsyscalls:\n  x86_64: [read]\n")
	code, out, errOut := run(t, "baseline", "diff", old, cur)
	want := "network:\n  + connect 169.254.169.254:80 [risky: cloud-metadata, high: the cloud's instance-metadata service hands out the machine's credentials]\n" +
		"  + connect api.github.com:443 by /usr/bin/git\n  - bind loopback:0\n0 new, 0 removed; network: 2 new, 1 removed\n"
	if code != ExitViolation || out != want || errOut != "" {
		t.Errorf("code %d\n%s\nwant\n%s%s", code, out, want, errOut)
	}
	code, out, _ = run(t, "baseline", "diff", "--format", "markdown", old, cur)
	if code != ExitViolation || !strings.Contains(out, "#### Network: 2 new, 1 removed") ||
		!strings.Contains(out, "| **new** | connect | `api.github.com:443` | `/usr/bin/git` |  |  |") ||
		!strings.Contains(out, "| **new** | connect | `169.254.169.254:80` |  |  | ⚠️ cloud-metadata, high: ") {
		t.Errorf("markdown: code %d\n%s", code, out)
	}
	// Neither side has a network section: nothing is said about it.
	plain := filepath.Join(dir, "plain.yaml")
	writeTestFile(t, plain, "version: 1\nagent: a\nsyscalls:\n  x86_64: [read]\n")
	if code, out, _ := run(t, "baseline", "diff", plain, plain); code != ExitOK || strings.Contains(out, "network") {
		t.Errorf("no network section: code %d\n%s", code, out)
	}
}

// Two observations: the destinations a run reached, counted, with what
// the run named escaped for a terminal and for markdown.
func TestBaselineDiffNetworkObservations(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, o *baseline.Observation) string {
		data, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		writeTestFile(t, path, string(data))
		return path
	}
	before := baseline.NewObservation("a")
	before.AddNetwork(baseline.NetConnect, baseline.Destination{Addr: netip.MustParseAddr("127.0.0.1"), Port: 8080}, "/usr/bin/python3", 1)
	after := baseline.NewObservation("a")
	after.AddNetwork(baseline.NetConnect, baseline.Destination{Addr: netip.MustParseAddr("127.0.0.2"), Port: 9}, "/tmp/x|`y\x1b[2J", 3)
	old, cur := write("old.json", before), write("new.json", after)
	code, out, _ := run(t, "baseline", "diff", old, cur)
	want := "network:\n  + connect 127.0.0.2:9 by /tmp/x|`y\\x1b[2J (3 calls)\n  - connect 127.0.0.1:8080 by /usr/bin/python3\n0 new, 0 removed; network: 1 new, 1 removed\n"
	if code != ExitViolation || out != want {
		t.Errorf("code %d\n%q\nwant\n%q", code, out, want)
	}
	code, out, _ = run(t, "baseline", "diff", "--format", "markdown", old, cur)
	if code != ExitViolation || strings.Contains(out, "x|`y") || strings.Contains(out, "\x1b") || !strings.Contains(out, "| **new** | connect | `127.0.0.2:9` |") {
		t.Errorf("markdown: code %d\n%s", code, out)
	}
}
