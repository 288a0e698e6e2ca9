package gate

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/suites/internal/fixture"
)

// Loopback starts an HTTP server on 127.0.0.1 that answers every request
// with body, stopped when the running spec ends, and returns its address
// (host:port). The server runs in the test process, outside the gate.
func Loopback(body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	DeferCleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// NewWorkspace creates the running spec's workspace (fixture.NewWorkspace
// in a temporary directory, removed when the spec ends) and returns its
// real path: the filesystem MCP server compares resolved paths.
func NewWorkspace() string {
	GinkgoHelper()
	dir, err := filepath.EvalSymlinks(GinkgoT().TempDir())
	Expect(err).NotTo(HaveOccurred())
	Expect(fixture.NewWorkspace(dir)).To(Succeed())
	return dir
}
