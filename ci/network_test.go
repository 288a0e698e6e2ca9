package ci

import (
	"bytes"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// networkViolations are one of each kind of destination a report names:
// a second loopback address, the cloud metadata address (high risk), the
// same host on a new port by name, and a send by a program whose path
// carries markdown and a terminal escape. file is the agent's baseline.
func networkViolations(file string) []verdict.NetworkViolation {
	return []verdict.NetworkViolation{
		{NetworkTouch: verdict.NetworkTouch{Op: baseline.NetConnect, Dest: "127.0.0.2:9", Program: "/usr/bin/python3.11", Syscall: "connect", PID: 41, Count: 1},
			Has: "not in the baseline; it has 127.0.0.1:{port}", File: file},
		{NetworkTouch: verdict.NetworkTouch{Op: baseline.NetConnect, Dest: "169.254.169.254:80", Program: "/usr/bin/curl", Syscall: "connect", PID: 44, Count: 2,
			Risk: risk.CloudMetadata, Level: risk.High}, Has: "not in the baseline", File: file},
		{NetworkTouch: verdict.NetworkTouch{Op: baseline.NetConnect, Dest: "api.example.test:8443", Addr: "127.0.0.9", Program: "/usr/bin/python3.11",
			Syscall: "connect", PID: 41, Count: 3}, Has: "not in the baseline; it has api.example.test:443", File: file},
		{NetworkTouch: verdict.NetworkTouch{Op: baseline.NetSend, Dest: "127.0.0.3:5353", Program: "/tmp/a|b`c\x1b[2J", Syscall: "sendto", PID: 45, Count: 1},
			File: file},
	}
}

// networkResult is a check run whose only findings are destinations,
// with the names it looked up.
func networkResult() *verdict.Result {
	r := fixtureResult()
	r.Violations, r.Leaked = verdict.Violations{}, nil
	r.NetworkObserved = true
	r.NetworkViolations = networkViolations("baselines/python-agent.yaml")
	r.Names = []verdict.ResolvedName{{Name: "api.example.test", Addrs: []string{"127.0.0.9", "127.0.0.10"}}, {Name: "nowhere.example.test", Rcode: "NXDOMAIN"}}
	return r
}

// unverifiedNetworkResult is a run the observer could not vouch for, and
// whose names went unrecorded.
func unverifiedNetworkResult() *verdict.Result {
	r := networkResult()
	r.NetworkViolations = nil
	r.Verdict = verdict.VerdictInconclusive
	r.UnverifiedNetwork = []string{"a sendmmsg of 3 messages: the audit record names only the last one's address"}
	r.Inconclusive = "a destination could not be vouched for: " + r.UnverifiedNetwork[0]
	r.Names, r.NamesUnrecorded = nil, "the agent's mount namespace has no /etc/resolv.conf of the run's own"
	return r
}

func TestNetworkGolden(t *testing.T) {
	resultGolden(t, "network", networkResult(), "text", "json", "github", "sarif")
	resultGolden(t, "network-unverified", unverifiedNetworkResult(), "text", "github")
	// A record run counts the destinations it learnt.
	rec := networkResult()
	rec.Mode, rec.NetworkViolations = baseline.ModeRecord, nil
	rec.Observed.AddNetwork(baseline.NetConnect, baseline.Destination{Name: "api.example.test", Addr: netip.MustParseAddr("127.0.0.9"), Port: 443}, "/usr/bin/python3.11", 2)
	rec.Observed.AddNetwork(baseline.NetResolve, baseline.Destination{Name: "api.example.test"}, "/usr/bin/python3.11", 1)
	resultGolden(t, "network.record", rec, "text")

	var text, color bytes.Buffer
	if err := WriteText(&text, networkResult(), Palette{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&color, networkResult(), Palette{Color: true}); err != nil {
		t.Fatal(err)
	}
	if want := sgrYellow + "connect 169.254.169.254:80 x2 (not in the baseline) [cloud-metadata, high] by /usr/bin/curl pid 44 (connect)" + sgrReset; !strings.Contains(color.String(), want) {
		t.Errorf("the risky destination is not painted:\n%s", color.String())
	}
	out := text.String()
	for _, want := range []string{
		"4 destinations outside the baseline:\n",
		"  connect 127.0.0.2:9 x1 (not in the baseline; it has 127.0.0.1:{port}) by /usr/bin/python3.11 pid 41 (connect)\n",
		"  api.example.test -> 127.0.0.9, 127.0.0.10\n",
		"  nowhere.example.test (NXDOMAIN)\n",
		`/tmp/a|b` + "`" + `c\x1b[2J`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[2J") {
		t.Error("the program's terminal escape reached the text report")
	}
	// The risky destination leads.
	if strings.Index(out, "169.254.169.254") > strings.Index(out, "127.0.0.2:9") {
		t.Errorf("the risky destination is not first:\n%s", out)
	}
}

func TestNetworkTextCapsNames(t *testing.T) {
	r := networkResult()
	r.Names = nil
	for i := range maxNamesShown + 5 {
		r.Names = append(r.Names, verdict.ResolvedName{Name: strings.Repeat("a", i+1) + ".tunnel.example.test"})
	}
	var b bytes.Buffer
	if err := WriteText(&b, r, Palette{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "25 names looked up:\n") || !strings.Contains(b.String(), "  and 5 more (--format json lists them all)\n") ||
		strings.Contains(b.String(), strings.Repeat("a", maxNamesShown+1)+".tunnel") {
		t.Errorf("names not capped at %d:\n%s", maxNamesShown, b.String())
	}
}

func TestNetworkWeakenedWithoutNames(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, unverifiedNetworkResult(), Palette{}); err != nil {
		t.Fatal(err)
	}
	want := "  WEAKENED GATE: names not recorded: the agent's mount namespace has no /etc/resolv.conf of the run's own; destinations read as addresses"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "INCONCLUSIVE (a destination could not be vouched for: a sendmmsg of 3 messages") {
		t.Errorf("want the weakening and the reason in\n%s", b.String())
	}
	r := FromResults("", unverifiedNetworkResult())
	if r.Verdict() != VerdictInconclusive {
		t.Errorf("verdict %q", r.Verdict())
	}
	var j bytes.Buffer
	if err := r.WriteJUnit(&j); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `type="inconclusive"`) || !strings.Contains(j.String(), "sendmmsg of 3 messages") {
		t.Errorf("JUnit:\n%s", j.String())
	}
}

func TestNetworkJUnitAndOutputs(t *testing.T) {
	var b bytes.Buffer
	if err := FromResults("", networkResult()).WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "result.network.junit.xml", b.Bytes())
	wellFormed(t, b.Bytes())
	if want := `message="python-agent: 4 destinations outside the baseline"`; !strings.Contains(b.String(), want) {
		t.Errorf("want %s in\n%s", want, b.String())
	}
	both := networkResult()
	both.Violations = fixtureResult().Violations[:1]
	if got := junitMessage(Run{Result: both}); got != "python-agent: 1 syscall and 4 destinations outside the baseline" {
		t.Errorf("syscalls and destinations: %q", got)
	}
	var out bytes.Buffer
	if err := FromResults("", networkResult()).WriteGitHubOutput(&out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "verdict=violation\nviolations=4\ndrift=false\n" {
		t.Errorf("github output %q", out.String())
	}
}

func TestNetworkSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := FromResults("", networkResult()).WriteSARIF(&b); err != nil {
		t.Fatal(err)
	}
	if err := validateSARIF(t, sarifSchema(t), b.Bytes()); err != nil {
		t.Fatalf("the SARIF log does not validate: %v\n%s", err, b.Bytes())
	}
	log := readSARIF(t, b.Bytes())
	severity := map[string]any{}
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		severity[r.ID] = r.Properties["security-severity"]
	}
	want := map[string]any{"network/connect": "5.0", "network/connect-cloud-metadata": "9.0", "network/send": "5.0"}
	if !reflect.DeepEqual(severity, want) {
		t.Errorf("rules and severities %v, want %v", severity, want)
	}
	for _, res := range log.Runs[0].Results {
		if loc := res.Locations[0].PhysicalLocation; loc.ArtifactLocation.URI != "baselines/python-agent.yaml" {
			t.Errorf("%s at %+v; want the agent's baseline", res.RuleID, loc)
		}
	}
}

// TestRenderNetwork: a suite's report with destinations outside the
// baseline, and a bite a passing spec expected.
func TestRenderNetwork(t *testing.T) {
	file := "../baselines/python-agent.yaml"
	r := render(t, "network",
		spec{text: "agent sends to a second address", failed: "python-agent reached 4 destinations outside its baseline", result: &verdict.Result{
			Agent: "python-agent", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: time.Second,
			NetworkObserved: true, NetworkViolations: networkViolations(file)}},
		spec{text: "agent is caught looking up a name", result: &verdict.Result{
			Agent: "python-agent-bite-resolve", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64, Duration: time.Second,
			NetworkObserved: true, NetworkViolations: []verdict.NetworkViolation{{NetworkTouch: verdict.NetworkTouch{Op: baseline.NetResolve,
				Dest: "unlisted.example.test", Program: "/usr/bin/python3.11", Syscall: "sendto", PID: 50, Count: 1}, File: file}}}},
	)
	a := r.Annotations()
	if len(a) != 4 || a[0].File != "suites/baselines/python-agent.yaml" || a[0].Level != "error" {
		t.Fatalf("annotations %+v: want an error per destination on the agent's baseline", a)
	}
	var risky int
	for _, x := range a {
		if strings.HasPrefix(x.Title, "sysgate: risky connect 169.254.169.254:80 (cloud-metadata, high)") {
			risky++
		}
	}
	if risky != 1 {
		t.Errorf("no risky annotation for the metadata address: %+v", a)
	}
	var sum bytes.Buffer
	if err := r.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Destinations outside the baseline", "| python-agent | connect | `api.example.test:8443` (`127.0.0.9`) | - | 3 |",
		"resolve `unlisted.example.test`"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, sum.String())
		}
	}
	if strings.Contains(sum.String(), "a|b`c") {
		t.Errorf("the program's path reached the summary unescaped:\n%s", sum.String())
	}
}
