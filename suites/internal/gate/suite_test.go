package gate

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The helpers' own logic, without the kernel: fabricated results.
func TestGate(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "gate helpers")
}

var _ = AfterSuite(ExpectNoLeftovers)
