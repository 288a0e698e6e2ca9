package baseline

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetworkExampleIsCanonical: the example file parses, and formatting
// it gives the same bytes (the file is its own golden).
func TestNetworkExampleIsCanonical(t *testing.T) {
	path := filepath.Join("testdata", "network", "agent.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ParseDocument(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Network) != 11 || !doc.HasNetwork {
		t.Fatalf("network: %+v", doc.Network)
	}
	if out := doc.Format(); !bytes.Equal(out, data) {
		t.Errorf("format differs:\n%s", out)
	}
}

func TestNetworkEntryProblems(t *testing.T) {
	for _, tc := range []struct{ section, want string }{
		{"connect: [api.openai.com:443]", ""},
		{"connect: [\"[::1]:8080\"]", ""},
		{"connect: [\"::1:8080\"]", "in brackets"},
		{"connect: [api.openai.com]", "write host:port"},
		{"connect: [api.openai.com:99999]", "port \"99999\""},
		{"connect: [\"10.0.0.1:{port}\"]", "only allowed on loopback"},
		{"connect: [\"public:{port}\"]", "only allowed on loopback"},
		{"connect: [\"*.github.com:443\"]", "is a glob; give a reason"},
		{"connect: [\"unix:/run/*.sock\"]", "is a glob; give a reason"},
		{"connect: [API.openai.com:443]", "lowercase DNS name"},
		{"connect: [unix:relative]", "unix socket path"},
		{"connect: [\"unix:@\"]", "needs a name after @"},
		{"connect: [metadata:80]", "a whole class of addresses; give a reason"},
		{"connect: [{path: metadata:80, reason: r}]", ""},
		{"connect: [public:443]", "a whole class of addresses; give a reason"},
		{"connect: [\"private:*\"]", "a whole class of addresses; give a reason"},
		{"connect: [169.254.169.254:80]", "high risk (cloud-metadata"},
		{"connect: [\"[fd00:ec2::254]:80\"]", "high risk (cloud-metadata"},
		{"connect: [smtp.example.com:25]", "high risk (remote-port"},
		{"connect: [{path: \"public:*\", by: /usr/bin/python3}]", "a whole class of addresses"},
		{"connect: [\"203.0.113.5:*\"]", "high risk (remote-port"},
		{"connect: [\"127.0.0.1:*\"]", ""},
		{"connect: [\"127.0.0.1:25\"]", "high risk (remote-port"},
		{"send: [8.8.8.8:53]", "high risk (own-resolver"},
		{"connect: [dns.google:853]", "high risk (own-resolver"},
		{"send: [127.0.0.53:53]", ""},
		{"connect: [\"loopback:*\"]", ""},
		{"connect: [unix:/run/docker.sock]", "high risk (container-socket"},
		{"connect: [{path: \"unix:/run/*\", reason: r}]", ""},
		{"connect: [{path: \"unix:/var/run/*.sock\"}]", "is a glob"},
		{"connect: [{path: example.com:443, by: /usr/bin/curl}]", "high risk (downloader"},
		{"connect: [{path: example.com:443, by: /usr/bin/curl, reason: fetches}]", ""},
		{"connect: [{path: example.com:443, by: curl}]", "absolute path"},
		{"connect: [{path: example.com:443, color: red}]", "unknown key \"color\""},
		{"bind: [\"0.0.0.0:8080\"]", "high risk (exposed-listener"},
		{"bind: [{path: \"any:8080\", reason: serves the preview}]", ""},
		{"listen: [\"10.1.2.3:80\"]", "high risk (exposed-listener"},
		{"listen: [\"loopback:*\"]", ""},
		{"resolve: [api.openai.com]", ""},
		{"resolve: [api.openai.com:443]", "without a port"},
		{"conect: [a.b:1]", "did you mean \"connect\"?"},
		{"connect: [a.b:1, a.b:1]", "listed twice"},
	} {
		src := "version: 1\nnetwork:\n  " + strings.ReplaceAll(tc.section, "\n", "\n  ") + "\n"
		_, err := ParseDocument("agent.yaml", []byte(src))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.section, got, tc.want)
		}
	}
}

func dest(t *testing.T, s string) Destination {
	t.Helper()
	d, err := ParseDestination(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestNetworkMatcher(t *testing.T) {
	doc, err := ParseDocument("testdata/network/agent.yaml", []byte(readFile(t, "testdata/network/agent.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	p := &Profile{Docs: []*Document{doc}}
	m := p.NetworkMatcher(FileContext{Tmp: "/tmp/run1"})
	for _, tc := range []struct {
		op      NetOp
		dest    string
		program string
		want    bool
	}{
		{NetConnect, "127.0.0.1:41234", "", true},
		{NetConnect, "127.0.0.2:9", "", true}, // loopback:* covers it
		{NetConnect, "api.openai.com=104.18.7.192:443", "/usr/bin/python3", true},
		{NetConnect, "api.openai.com=104.18.7.192:80", "", false},
		{NetConnect, "104.18.7.192:443", "", false}, // direct IP: no name entry covers it
		{NetConnect, "objects.githubusercontent.com=185.199.108.133:443", "", true},
		{NetConnect, "githubusercontent.com=185.199.108.133:443", "", false},
		{NetConnect, "a.b.githubusercontent.com=185.199.108.133:443", "", false},
		{NetConnect, "api.github.com=140.82.112.6:443", "/usr/bin/git", true},
		{NetConnect, "api.github.com=140.82.112.6:443", "/usr/bin/curl", false},
		{NetConnect, "api.github.com=140.82.112.6:443", "", false},
		{NetConnect, "unix:/run/docker.sock", "", true},
		{NetConnect, "unix:/run/containerd/containerd.sock", "", false},
		{NetConnect, "unix:/tmp/run1/agent.sock", "", true},
		{NetConnect, "unix:/tmp/run2/agent.sock", "", false},
		{NetConnect, "unix:@agent", "", false},
		{NetConnect, "localhost=[::1]:8080", "", true},
		{NetBind, "127.0.0.1:0", "", true},
		{NetBind, "127.0.0.1:8080", "", false},
		{NetBind, "0.0.0.0:0", "", false},
		{NetListen, "[::1]:8080", "", true},
		{NetListen, "0.0.0.0:8080", "", false},
		{NetSend, "127.0.0.53:53", "", true},
		{NetSend, "8.8.8.8:53", "", false},
		{NetResolve, "api.openai.com", "", true},
		{NetResolve, "openai.com", "", false},
		{NetResolve, "evil.example.com", "", false},
	} {
		d, err := ParseDestination(tc.dest)
		if err != nil {
			if tc.want {
				t.Errorf("%s: %v", tc.dest, err)
			}
			continue
		}
		if got := m.Allows(tc.op, d, tc.program); got != tc.want {
			t.Errorf("Allows(%s, %s, %q) = %v, want %v", tc.op, tc.dest, tc.program, got, tc.want)
		}
	}
}

func TestNetworkExplain(t *testing.T) {
	doc, err := ParseDocument("a.yaml", []byte("version: 1\nnetwork:\n  connect:\n    - \"127.0.0.1:{port}\"\n    - api.openai.com:443\n    - {path: api.github.com:443, by: /usr/bin/git}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := (&Profile{Docs: []*Document{doc}}).NetworkMatcher(FileContext{})
	for _, tc := range []struct {
		dest, program, want string
	}{
		{"127.0.0.2:9", "", "not in the baseline; it has 127.0.0.1:{port}"},
		{"api.openai.com=1.2.3.4:80", "", "not in the baseline; it has api.openai.com:443"},
		{"api.github.com=1.2.3.4:443", "/usr/bin/python3", "not in the baseline for /usr/bin/python3; it has api.github.com:443 by /usr/bin/git"},
	} {
		if got := m.Explain(NetConnect, dest(t, tc.dest), tc.program); got != tc.want {
			t.Errorf("Explain(%s) = %q, want %q", tc.dest, got, tc.want)
		}
	}
	empty := newNetworkMatcher(nil, FileContext{})
	if got := empty.Explain(NetConnect, dest(t, "1.2.3.4:1"), ""); !strings.Contains(got, "network section is empty") {
		t.Errorf("empty: %q", got)
	}
}

func TestDestinationRoundTrip(t *testing.T) {
	for _, d := range []Destination{
		{Addr: netip.MustParseAddr("127.0.0.1"), Port: 8080},
		{Addr: netip.MustParseAddr("::1"), Port: 8080},
		{Name: "api.openai.com", Addr: netip.MustParseAddr("104.18.7.192"), Port: 443},
		{Name: "v6.example", Addr: netip.MustParseAddr("2001:db8::1"), Port: 443},
		{Name: "api.openai.com"},
		{Unix: "/run/docker.sock"},
		{Unix: "@abstract"},
	} {
		got, err := ParseDestination(d.Key())
		if err != nil || got != d {
			t.Errorf("ParseDestination(%q) = %+v, %v; want %+v", d.Key(), got, err, d)
		}
	}
	for _, bad := range []string{"", "1.2.3.4", "x:y", "unix:rel", "Name=1.2.3.4:1", "[::1", "fe80::1%eth0:1"} {
		if _, err := ParseDestination(bad); err == nil {
			t.Errorf("ParseDestination(%q) accepted", bad)
		}
	}
}

func TestNetworkStackDuplicate(t *testing.T) {
	files := map[string]string{
		"base.yaml":  "version: 1\nnetwork:\n  connect:\n    - api.openai.com:443\n",
		"agent.yaml": "version: 1\nextends: [base.yaml]\nnetwork:\n  connect:\n    - api.openai.com:443\n    - \"127.0.0.1:{port}\"\n",
	}
	dir := t.TempDir()
	for name, body := range files {
		writeFile(t, dir, name, body)
	}
	_, err := Load(filepath.Join(dir, "agent.yaml"))
	if err == nil || !strings.Contains(err.Error(), "connect api.openai.com:443 is already allowed by") {
		t.Errorf("stack duplicate: %v", err)
	}
}
