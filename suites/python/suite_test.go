package python_test

import (
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/suites/internal/deadline"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/gate"
)

func TestPythonAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	defer deadline.Default(deadline.Ordinary)()
	RunSpecs(t, "Python agent under the gate")
}

// agent is the Python agent's command line, found once on process 1;
// fetchTool its download tool (a pinned copy of curl, see
// fixture.InstallFetchTool).
var (
	agent     []string
	fetchTool string
)

var _ = SynchronizedBeforeSuite(func() []byte {
	gate.RequireBackend(GinkgoT())
	gate.RecordSettings()
	argv, err := fixture.PythonAgent()
	Expect(err).NotTo(HaveOccurred())
	tool, err := fixture.InstallFetchTool()
	Expect(err).NotTo(HaveOccurred())
	return []byte(strings.Join(append(argv, tool), "\x00"))
}, func(data []byte) {
	all := strings.Split(string(data), "\x00")
	agent, fetchTool = all[:len(all)-1], all[len(all)-1]
})

var _ = SynchronizedAfterSuite(gate.ExpectNoLeftovers, gate.ExpectSettingsBack)
