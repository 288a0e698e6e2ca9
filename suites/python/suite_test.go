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

// agent is the Python agent's command line, found once on process 1.
var agent []string

var _ = SynchronizedBeforeSuite(func() []byte {
	gate.RequireBackend(GinkgoT())
	argv, err := fixture.PythonAgent()
	Expect(err).NotTo(HaveOccurred())
	return []byte(strings.Join(argv, "\x00"))
}, func(data []byte) {
	agent = strings.Split(string(data), "\x00")
})

var _ = SynchronizedAfterSuite(gate.ExpectNoLeftovers, func() {})
