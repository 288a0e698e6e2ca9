package goagent_test

import (
	"os"
	"path/filepath"
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
	dir, err := os.MkdirTemp("", "sysgate-goagent-")
	Expect(err).NotTo(HaveOccurred())
	// The agent may run as the user who ran sudo.
	Expect(os.Chmod(dir, 0o755)).To(Succeed())
	bin, err := fixture.BuildGoAgent(dir)
	Expect(err).NotTo(HaveOccurred())
	return []byte(bin)
}, func(data []byte) {
	goagent = string(data)
})

var _ = SynchronizedAfterSuite(gate.ExpectNoLeftovers, func() {
	if goagent != "" {
		Expect(os.RemoveAll(filepath.Dir(goagent))).To(Succeed())
	}
})
