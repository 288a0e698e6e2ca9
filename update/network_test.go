package update

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

// TestPRBodyNetworkChanges: a file's new and removed network entries,
// risky ones also at the top; a file whose only change is the network
// section changes.
func TestPRBodyNetworkChanges(t *testing.T) {
	agent := "baselines/agents/python-agent.yaml"
	u := &Update{Arches: []scmp.Arch{scmp.X86_64}, Files: []FileChange{
		{Agent: "python-agent", File: agent, Runs: 2,
			AddedNetwork: []baseline.NetworkFinding{
				{Op: baseline.NetConnect, Dest: "api.example.test:443", File: agent, Line: 14},
				{Op: baseline.NetConnect, Dest: "169.254.169.254:80", Program: "/usr/bin/curl", Risk: risk.CloudMetadata, Level: risk.High, File: agent, Line: 15},
				{Op: baseline.NetResolve, Dest: "api.example.test", File: agent, Line: 20}},
			RemovedNetwork: []baseline.NetworkFinding{{Op: baseline.NetBind, Dest: "loopback:0", File: agent, Line: 17}}},
	}}
	if !u.Files[0].Changed() {
		t.Error("a file whose only change is its network section does not change")
	}
	var body bytes.Buffer
	if err := u.WritePRBody(&body, PRBodyOptions{BaselineDir: "baselines"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "update.network.pr-body.md", body.Bytes())
	for _, want := range []string{"### ⚠️ Risky destinations: a reason is required",
		"- new connect `169.254.169.254:80` by `/usr/bin/curl` **(cloud-metadata, high; give it a reason)**",
		"- removed bind `loopback:0`: no run needed it"} {
		if !strings.Contains(body.String(), want) {
			t.Errorf("the PR body lacks %q:\n%s", want, body.String())
		}
	}
}

// TestWideningNamesFilesAndNetwork: a pull request that adds a files or
// network entry, or drops the network section, says which.
func TestWideningNamesFilesAndNetwork(t *testing.T) {
	w := &Widening{Base: "abc123", Entries: []baseline.Widened{
		{Kind: baseline.WidenFile, Path: "{home}/.ssh/id_rsa: read", File: "b.yaml", Line: 4},
		{Kind: baseline.WidenNetwork, Path: "connect 169.254.169.254:80", Risk: risk.CloudMetadata, Level: risk.High,
			RiskReason: "the cloud's instance-metadata service hands out the machine's credentials", File: "b.yaml", Line: 9},
		{Kind: baseline.WidenUngated, Reason: "the network section is gone: every destination is allowed", File: "base.yaml"},
	}}
	var b bytes.Buffer
	w.WriteText(&b)
	for _, want := range []string{"  b.yaml:4: file {home}/.ssh/id_rsa: read\n",
		"  b.yaml:9: network connect 169.254.169.254:80 [risky: cloud-metadata, high: the cloud's instance-metadata service hands out the machine's credentials]\n",
		"  base.yaml: network no longer gated; reason: the network section is gone: every destination is allowed\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want %q in\n%s", want, b.String())
		}
	}
}
