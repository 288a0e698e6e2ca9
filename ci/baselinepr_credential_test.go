package ci

import (
	"io/fs"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// TestBaselinePRPushesWithGitToken: the update job's checkout keeps no
// credential (persist-credentials: false), so sysgate action baseline-pr must hand
// GIT_TOKEN to the git commands that talk to the remote, and leave it
// nowhere in the checkout. The remote is git's own smart HTTP server on
// loopback, which answers only with that token.
func TestBaselinePRPushesWithGitToken(t *testing.T) {
	backend := filepath.Join(strings.TrimSpace(gitOutput(t, "--exec-path")), "git-http-backend")
	testutil.RequireFile(t, backend, "git's smart HTTP server (Debian's git package)")
	sysgate := buildSysgate(t)
	e := newPREnv(t, sysgate)
	e.git(e.origin, "config", "http.receivepack", "true")
	const token = "ghs_test-token-0123456789"
	git := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + e.dir, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "x-access-token" || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		git.ServeHTTP(w, r)
	}))
	defer srv.Close()

	open := func(name string, env ...string) (string, string, error) {
		checkout := e.clone(name)
		e.git(checkout, "remote", "set-url", "origin", srv.URL+"/origin.git")
		cmd := e.baselinePR("open", e.shards)
		// No prompt: a credential git would ask a person for is a failure.
		cmd.Dir, cmd.Env = checkout, append(append([]string{}, e.env...), append(env, "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=/bin/false")...)
		out, err := cmd.CombinedOutput()
		return checkout, string(out), err
	}
	if _, out, err := open("anonymous"); err == nil {
		t.Fatalf("the remote took an update without the token:\n%s", out)
	}
	checkout, out, err := open("with-token", "GIT_TOKEN="+token)
	if err != nil {
		t.Fatalf("open with GIT_TOKEN: %v\n%s", err, out)
	}
	if got := e.remoteFile("sysgate/baseline-update/main", "baselines/demo.yaml"); !strings.Contains(got, "mount") {
		t.Errorf("the bot branch on the remote lacks the update:\n%s", got)
	}
	// Nothing the next step could read: no file of the checkout's .git
	// holds the token.
	err = filepath.WalkDir(filepath.Join(checkout, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), token) {
			t.Errorf("%s holds the token", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func gitOutput(t *testing.T, args ...string) string {
	t.Helper()
	testutil.RequireCommand(t, "git", "the baseline update commits and pushes with git")
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
