package gate

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

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

// UnixLoopback serves body over HTTP on a Unix socket in dir (the
// agent's workspace: a baseline names it {workspace}/service.sock) and
// returns the socket's path.
func UnixLoopback(dir, body string) string {
	GinkgoHelper()
	path := filepath.Join(dir, "service.sock")
	l, err := net.Listen("unix", path)
	Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	}))
	srv.Listener = l
	srv.Start()
	DeferCleanup(srv.Close)
	// The agent may run as another user.
	Expect(os.Chmod(path, 0o777)).To(Succeed())
	return path
}

// workspaceRoot holds every workspace of this test process, so that
// ExpectNoLeftovers can tell its agents' processes by their working
// directory.
var workspaceRoot = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("sysgate-suites-%d-", os.Getpid()))
	if err != nil {
		return "", err
	}
	// An agent running as the sudo caller passes through to its workspace.
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	// Resolved, as the kernel reports a working directory.
	return filepath.EvalSymlinks(dir)
})

// NewWorkspace creates the running spec's workspace (fixture.NewWorkspace
// in a new directory, removed when the spec ends) and returns its real
// path: the filesystem MCP server compares resolved paths.
func NewWorkspace() string {
	GinkgoHelper()
	dir, err := filepath.EvalSymlinks(specDir("workspace-"))
	Expect(err).NotTo(HaveOccurred())
	Expect(fixture.NewWorkspace(dir)).To(Succeed())
	handToAgent(dir)
	return dir
}

// AgentTempDir is a new directory, removed when the spec ends, for files
// an agent reads (a module to preload, a plan): readable by the agent's
// user also when that is not the caller (under sudo).
func AgentTempDir() string {
	GinkgoHelper()
	dir := specDir("files-")
	Expect(os.Chmod(dir, 0o755)).To(Succeed())
	return dir
}

// specDir is a new directory under workspaceRoot, removed when the spec
// ends.
func specDir(prefix string) string {
	GinkgoHelper()
	root, err := workspaceRoot()
	Expect(err).NotTo(HaveOccurred())
	dir, err := os.MkdirTemp(root, prefix)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	return dir
}

// handToAgent gives a workspace to the agent's user when that is not the
// caller (under sudo), as a user's own checkout would be theirs: the
// agents write there.
func handToAgent(dir string) {
	GinkgoHelper()
	uid, gid, ok := agentUser()
	if !ok {
		return
	}
	Expect(filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(uid), int(gid))
	})).To(Succeed())
}

// ExpectNoLeftovers fails if a process still works in one of this test
// process's workspaces (every agent runs there), then removes them. The
// harness kills and reports what outlives a run; this is the suite-level
// backstop, for SynchronizedAfterSuite on every process.
func ExpectNoLeftovers() {
	GinkgoHelper()
	root, err := workspaceRoot()
	Expect(err).NotTo(HaveOccurred())
	cwds, err := filepath.Glob("/proc/[0-9]*/cwd")
	Expect(err).NotTo(HaveOccurred())
	var left []string
	for _, link := range cwds {
		cwd, err := os.Readlink(link)
		if err == nil && strings.HasPrefix(cwd, root) {
			cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(link), "cmdline"))
			left = append(left, fmt.Sprintf("%s: %s", filepath.Base(filepath.Dir(link)), bytes.ReplaceAll(cmdline, []byte{0}, []byte(" "))))
		}
	}
	Expect(left).To(BeEmpty(), "processes left in the suite's workspaces (pid: command)")
	Expect(os.RemoveAll(root)).To(Succeed())
}

// KeyHome is a home directory, outside the workspace, holding a fake SSH
// private key at .ssh/id_rsa (readable by the agent's user): what a
// files bite reads. It returns the home and the key, symlinks resolved.
func KeyHome() (home, key string) {
	GinkgoHelper()
	dir, err := filepath.EvalSymlinks(AgentTempDir())
	Expect(err).NotTo(HaveOccurred())
	home = filepath.Join(dir, "home")
	Expect(os.MkdirAll(filepath.Join(home, ".ssh"), 0o755)).To(Succeed())
	key = filepath.Join(home, ".ssh", "id_rsa")
	Expect(os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n-----END OPENSSH PRIVATE KEY-----\n"), 0o644)).To(Succeed())
	return home, key
}

// WithHome is env with HOME set to home (replacing the one it has).
func WithHome(env []string, home string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+home)
}
