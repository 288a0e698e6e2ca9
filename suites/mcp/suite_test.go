package mcp_test

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/suites/internal/deadline"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/gate"
)

func TestMCPServers(t *testing.T) {
	RegisterFailHandler(Fail)
	defer deadline.Default(deadline.Ordinary)()
	RunSpecs(t, "MCP servers from npm under the gate")
}

// servers maps a pinned package to the command line that starts it.
var servers map[string][]string

var _ = SynchronizedBeforeSuite(func() []byte {
	gate.RequireBackend(GinkgoT())
	gate.RecordSettings()
	// make security-test runs npm ci first (scripts/deps.sh --suites); a
	// plain go test needs `make deps-suites` once.
	found := map[string][]string{}
	for _, name := range []string{fixture.ServerFilesystem, fixture.ServerMemory} {
		argv, err := fixture.NodeServer(name)
		Expect(err).NotTo(HaveOccurred())
		found[name] = argv
	}
	data, err := json.Marshal(found)
	Expect(err).NotTo(HaveOccurred())
	return data
}, func(data []byte) {
	Expect(json.Unmarshal(data, &servers)).To(Succeed())
})

var _ = SynchronizedAfterSuite(gate.ExpectNoLeftovers, gate.ExpectSettingsBack)
