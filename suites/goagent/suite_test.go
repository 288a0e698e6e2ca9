package goagent_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/suites/internal/deadline"
	"github.com/sysgate/sysgate/suites/internal/fixture"
	"github.com/sysgate/sysgate/suites/internal/gate"
)

func TestGoAgent(t *testing.T) {
	RegisterFailHandler(Fail)
	defer deadline.Default(deadline.Ordinary)()
	RunSpecs(t, "Go agent under the gate")
}

// goagent is the static agent binary, built once on process 1.
var goagent string

var _ = SynchronizedBeforeSuite(func() []byte {
	gate.RequireBackend(GinkgoT())
	gate.RecordSettings()
	// Built where the baselines' programs list expects it (a stable path,
	// so the program gate has one line for it).
	bin, err := fixture.InstallGoAgent()
	Expect(err).NotTo(HaveOccurred())
	return []byte(bin)
}, func(data []byte) {
	goagent = string(data)
})

var _ = SynchronizedAfterSuite(gate.ExpectNoLeftovers, gate.ExpectSettingsBack)
