package baseline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline/risk"
)

func netObservation(t *testing.T, calls ...string) *Observation {
	t.Helper()
	o := NewObservation("a")
	o.Runs = 1
	o.Network = map[string]map[string]map[string]uint64{}
	// "connect api.openai.com=1.2.3.4:443 /usr/bin/python3 xx": two calls
	for _, c := range calls {
		f := strings.Fields(c)
		op, ok := ParseNetOp(f[0])
		if !ok {
			t.Fatalf("op %q", f[0])
		}
		prog, n := "", uint64(1)
		for _, x := range f[2:] {
			if strings.HasPrefix(x, "x") {
				n = uint64(len(x))
			} else {
				prog = x
			}
		}
		o.AddNetwork(op, dest(t, f[1]), prog, n)
	}
	return o
}

func entryLines(es []NetworkEntry) string {
	var out []string
	for _, e := range es {
		s := e.Op.String() + " " + e.String()
		if e.Reason != "" {
			s += " (" + e.Reason + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

func TestGeneraliseNetwork(t *testing.T) {
	o := netObservation(t,
		"connect api.openai.com=104.18.7.192:443 /usr/bin/python3 xx",
		"connect api.openai.com=104.18.7.193:443 /usr/bin/python3",
		"connect 127.0.0.1:41234 /usr/bin/python3",    // once: a port the run chose
		"connect 127.0.0.1:8080 /usr/bin/python3 xxx", // covered by 127.0.0.1:{port}
		"connect 127.0.0.2:9 /usr/bin/python3 xxx",    // another address stays apart; a port used often stays
		"connect 140.82.112.6:443 /usr/bin/python3",   // a bare public IP: the direct-IP bypass
		"connect 169.254.169.254:80 /usr/bin/python3", // metadata
		"connect example.com=93.184.215.14:443 /usr/bin/curl",
		"connect example.com=93.184.215.14:443 /usr/bin/python3",
		"connect unix:/run/docker.sock /usr/bin/docker",
		"connect unix:/tmp/r1/agent.sock /usr/bin/python3",
		"connect unix:@hidden*name /usr/bin/python3",
		"bind 127.0.0.1:0 /usr/bin/python3",
		"bind 0.0.0.0:8000 /usr/bin/python3",
		"listen [::1]:45678 /usr/bin/python3",
		"send 127.0.0.53:53 /usr/bin/python3 xx",
		"resolve api.openai.com /usr/bin/python3",
	)
	got := entryLines(GeneraliseNetwork(FileContext{Tmp: "/tmp/r1"}, o.NetworkList()))
	want := `connect 127.0.0.1:{port}
connect 127.0.0.2:9
connect 140.82.112.6:443
connect 169.254.169.254:80 (unreviewed: seen in record mode)
connect api.openai.com:443
connect example.com:443
connect example.com:443 by /usr/bin/curl (unreviewed: seen in record mode)
connect unix:/run/docker.sock (unreviewed: seen in record mode)
connect unix:{tmp}/agent.sock
bind 0.0.0.0:8000 (unreviewed: seen in record mode)
bind 127.0.0.1:0
listen [::1]:{port}
send 127.0.0.53:53
resolve api.openai.com`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// The literal port beside {port} on one address adds nothing.
	o = netObservation(t, "listen 127.0.0.1:41234", "connect 127.0.0.1:41234", "connect 127.0.0.1:8080 xx")
	if got := entryLines(GeneraliseNetwork(FileContext{}, o.NetworkList())); got != "connect 127.0.0.1:{port}\nlisten 127.0.0.1:{port}" {
		t.Errorf("covered literal: %s", got)
	}
	// A port the kernel hands out where the run asked it for one is the
	// run's, however often it was used; a loopback address keeps its
	// address even by name; a fixed port stays.
	o = netObservation(t, "connect 127.0.0.5:41234 xxx", "connect api.test=127.0.0.3:45000 xx", "connect 127.0.0.4:8080 xx", "listen 127.0.0.5:0 xx", "bind 0.0.0.0:0")
	want = "connect 127.0.0.3:{port}\nconnect 127.0.0.4:8080\nconnect 127.0.0.5:{port}\nbind 0.0.0.0:0 (unreviewed: seen in record mode)\nlisten 127.0.0.5:{port}"
	if got := entryLines(GeneraliseNetwork(FileContext{}, o.NetworkList())); got != want {
		t.Errorf("run-time ports:\n%s\nwant:\n%s", got, want)
	}
}

// TestGeneraliseNetworkServicePorts: a loopback port the run did not
// bind is a service (issue 43, item 11): record writes it literally,
// however often it was called, so a second service on the machine is
// not allowed by the first one's entry.
func TestGeneraliseNetworkServicePorts(t *testing.T) {
	for _, tc := range []struct {
		name string
		seen []string
		want string
	}{
		{"a model API called once", []string{"connect 127.0.0.1:8765"}, "connect 127.0.0.1:8765"},
		{"called three times", []string{"connect 127.0.0.1:8765 xxx"}, "connect 127.0.0.1:8765"},
		{"a service on a port in the kernel's range", []string{"connect 127.0.0.1:41234"}, "connect 127.0.0.1:41234"},
		{"a resolver", []string{"send 127.0.0.53:53"}, "send 127.0.0.53:53"},
		{"a proxy, once", []string{"connect 127.0.0.1:3128"}, "connect 127.0.0.1:3128"},
		{"the run's own server on a port it named", []string{"bind 127.0.0.1:8000", "listen 127.0.0.1:8000", "connect 127.0.0.1:8000"},
			"connect 127.0.0.1:{port}\nbind 127.0.0.1:8000\nlisten 127.0.0.1:8000"},
		{"the run's own server, port 0, on notify", []string{"bind 127.0.0.1:0", "listen 127.0.0.1:41234", "connect 127.0.0.1:41234"},
			"connect 127.0.0.1:{port}\nbind 127.0.0.1:0\nlisten 127.0.0.1:{port}"},
		{"the run's own server, port 0, on audit", []string{"bind 127.0.0.1:0", "listen 127.0.0.1:0", "connect 127.0.0.1:41234"},
			"connect 127.0.0.1:{port}\nbind 127.0.0.1:0\nlisten 127.0.0.1:{port}"},
		{"a port asked for on another address", []string{"listen 127.0.0.2:0", "connect 127.0.0.1:41234"},
			"connect 127.0.0.1:41234\nlisten 127.0.0.2:{port}"},
		{"a fixed port beside the run's own", []string{"listen 127.0.0.1:0", "connect 127.0.0.1:8765"},
			"connect 127.0.0.1:8765\nlisten 127.0.0.1:{port}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := netObservation(t, tc.seen...)
			if got := entryLines(GeneraliseNetwork(FileContext{}, o.NetworkList())); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestRecordNetworkOwnPortAllowed: the run's listen decides even when a
// base already allows it, so only the connect is new.
func TestRecordNetworkOwnPortAllowed(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "base.yaml", "version: 1\nnetwork:\n  listen:\n    - 127.0.0.1:{port}\n")
	path := writeFile(t, dir, "a.yaml", "version: 1\nagent: a\nextends: [base.yaml]\n")
	o := netObservation(t, "listen 127.0.0.1:0", "connect 127.0.0.1:41234", "connect 127.0.0.1:8765")
	doc, _, err := FromObservation(path, o, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Format()); !strings.Contains(got, "network:\n  connect:\n    - 127.0.0.1:{port}\n") || strings.Contains(got, "listen") {
		t.Errorf("got:\n%s", got)
	}
}

func TestObservationNetworkRoundTrip(t *testing.T) {
	o := netObservation(t, "connect api.openai.com=104.18.7.192:443 /usr/bin/python3 xx", "resolve api.openai.com")
	if err := o.Merge(netObservation(t, "connect api.openai.com=104.18.7.192:443 /usr/bin/python3")); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"network":{"connect":{"api.openai.com=104.18.7.192:443":{"/usr/bin/python3":3}},"resolve":{"api.openai.com":{"":1}}}`) {
		t.Errorf("json: %s", data)
	}
	back, err := DecodeObservation(data)
	if err != nil || len(back.NetworkList()) != 2 || back.NetworkList()[0].Count != 3 {
		t.Errorf("back: %v %+v", err, back.NetworkList())
	}
	if s := back.String(); !strings.Contains(s, "network connect: api.openai.com=104.18.7.192:443×3 (/usr/bin/python3)") {
		t.Errorf("String: %s", s)
	}
	for _, bad := range []string{
		`{"network":{"conect":{"1.2.3.4:1":{"":1}}}}`,
		`{"network":{"connect":{"1.2.3.4":{"":1}}}}`,
		`{"network":{"connect":{"unix:rel":{"":1}}}}`,
		`{"network":{"connect":{"1.2.3.4:1":{"python3":1}}}}`,
	} {
		if _, err := DecodeObservation([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestDiffNetwork(t *testing.T) {
	p := loadFilesSection(t, "network:\n  connect:\n    - \"127.0.0.1:{port}\"\n    - api.openai.com:443\n    - example.org:443\n")
	o := netObservation(t,
		"connect 127.0.0.1:41234 /usr/bin/python3",
		"connect 127.0.0.2:9 /usr/bin/python3 xx",
		"connect api.openai.com=104.18.7.192:443 /usr/bin/python3",
		"connect 169.254.169.254:80 /usr/bin/python3",
	)
	r := Diff(p, o)
	if len(r.NewNetwork) != 2 || len(r.UnusedNetwork) != 1 {
		t.Fatalf("new %+v unused %+v", r.NewNetwork, r.UnusedNetwork)
	}
	if n := r.NewNetwork[0]; n.Dest != "127.0.0.2:9" || n.Count != 2 || n.Program != "/usr/bin/python3" || n.Explain != "not in the baseline; it has 127.0.0.1:{port}" || n.Risk != "" {
		t.Errorf("second loopback address: %+v", n)
	}
	if n := r.NewNetwork[1]; n.Dest != "169.254.169.254:80" || n.Risk != risk.CloudMetadata || n.Level != risk.High {
		t.Errorf("metadata: %+v", n)
	}
	if u := r.UnusedNetwork[0]; u.Dest != "example.org:443" || u.Line != 6 {
		t.Errorf("unused %+v", u)
	}
	// A network-blind profile reports no new destinations, and warns.
	blind := loadFilesSection(t, "syscalls:\n  x86_64: [read]\n")
	if r := Diff(blind, o); len(r.NewNetwork) != 0 {
		t.Errorf("blind: %+v", r.NewNetwork)
	}
	if w := blind.NetworkBlindWarning(); w == nil || !strings.HasSuffix(w.Error(), "[net-blind]") {
		t.Errorf("blind warning: %v", w)
	}
	if w := p.NetworkBlindWarning(); w != nil {
		t.Errorf("gated profile warns: %v", w)
	}
}

func TestRecordNetwork(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.yaml")
	old := "version: 1\nnetwork:\n  connect:\n    - path: api.openai.com:443\n      reason: the model\n    - stale.example:443\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	o := netObservation(t, "connect api.openai.com=104.18.7.192:443", "connect 127.0.0.1:41234")
	doc, res, err := FromObservation(path, o, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := string(doc.Format())
	// 127.0.0.1:41234: a service the run did not start keeps its port.
	if !strings.Contains(got, "network:\n  connect:\n    - 127.0.0.1:41234\n    - path: api.openai.com:443\n      reason: the model\n") {
		t.Errorf("without merge:\n%s", got)
	}
	if len(res.AddedNetwork) != 1 || len(res.RemovedNetwork) != 1 || res.RemovedNetwork[0].Dest != "stale.example:443" {
		t.Errorf("added %+v removed %+v", res.AddedNetwork, res.RemovedNetwork)
	}
	doc, _, err = FromObservation(path, o, RecordOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Format()); !strings.Contains(got, "    - stale.example:443\n") || !strings.Contains(got, "reason: the model") {
		t.Errorf("merge keeps stale.example and the reason:\n%s", got)
	}
	// An observation without network data leaves the section alone.
	doc, _, err = FromObservation(path, NewObservation("a"), RecordOptions{Merge: true})
	if err != nil || !doc.HasNetwork || len(doc.Network) != 2 {
		t.Errorf("no network observed: %v %+v", err, doc)
	}
}

func TestWidenNetwork(t *testing.T) {
	base := map[string]string{"a.yaml": "version: 1\nnetwork:\n  connect:\n    - \"loopback:*\"\n    - api.openai.com:443\n"}
	cur := map[string]string{"a.yaml": "version: 1\nnetwork:\n  connect:\n    - \"loopback:*\"\n    - api.openai.com:443\n    - 127.0.0.2:9\n" +
		"    - api.openai.com:80\n    - path: 169.254.169.254:80\n      reason: reads the region\n"}
	ws := Widen(loadFiles(t, base, "a.yaml"), loadFiles(t, cur, "a.yaml"))
	got := widenedSubjects(ws)
	want := "network connect api.openai.com:80; network connect 169.254.169.254:80"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if len(ws) == 2 && (ws[1].Risk != risk.CloudMetadata || ws[1].Level != risk.High || ws[1].RiskReason == "") {
		t.Errorf("metadata widening %+v", ws[1])
	}
	gone := map[string]string{"a.yaml": "version: 1\nsyscalls:\n  x86_64: [read]\n"}
	if got := widenedSubjects(Widen(loadFiles(t, base, "a.yaml"), loadFiles(t, gone, "a.yaml"))); !strings.Contains(got, "ungated") {
		t.Errorf("dropped section: %s", got)
	}
	// Issue 43, item 7: a section the base file lacked widens by every
	// entry (TestWidenFiles).
	if got := Widen(loadFiles(t, gone, "a.yaml"), loadFiles(t, cur, "a.yaml")); len(got) != len(loadFiles(t, cur, "a.yaml").NetworkEntries()) {
		t.Errorf("a network section added: %s, want every entry", widenedSubjects(got))
	}
}

// An observation that watched the network and saw nothing says so
// through JSON: a record run then writes an empty section, which gates.
func TestObservationKeepsEmptyNetwork(t *testing.T) {
	o := NewObservation("a")
	o.Network = map[string]map[string]map[string]uint64{}
	o.Files = map[string]map[string]uint64{}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeObservation(b)
	if err != nil {
		t.Fatal(err)
	}
	if !back.ObservesNetwork() || !back.ObservesFiles() {
		t.Errorf("%s: an empty network or files observation was lost", b)
	}
	b, _ = json.Marshal(NewObservation("a"))
	if strings.Contains(string(b), "network") || strings.Contains(string(b), "files") {
		t.Errorf("%s: an observation that watched neither claims one", b)
	}
}
