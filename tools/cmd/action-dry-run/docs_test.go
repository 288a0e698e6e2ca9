package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
)

// docsBlock is the shell block of docs/action.md that follows the marker
// naming this test.
func docsBlock(t *testing.T, checkout string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(checkout, "docs", "action.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- tools/cmd/action-dry-run/docs_test.go [^>]*-->\n```sh\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/action.md has no shell block after the marker naming docs_test.go")
	}
	return string(m[1])
}

// Issue 46, item 6: the dry run as docs/action.md documents it, run as
// written from an agent's repository, as root and as a hosted runner's
// job user (non-root, password-less sudo): record returns the baseline
// as a patch and says verdict=recorded, the check against the applied
// patch is clean, and nothing of either run is left in the repository
// but the patch the user applied.
func TestDocumentedDryRun(t *testing.T) {
	e := newDryRunEnv(t)
	auditctltest.HoldTuning(t)
	block := docsBlock(t, e.checkout)
	u := testutil.RequireSudoUser(t)
	// mktemp -d's parent, writable by both users, removed with e.base.
	tmp := filepath.Join(e.base, "tmp")
	if err := os.Mkdir(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	// The dry run's default actions/cache store ($XDG_CACHE_HOME), one for
	// both users: root's run saves the build the job user's restores, as
	// one runner's cache serves the next job.
	xdg := filepath.Join(e.base, "xdg-cache")
	if err := os.Mkdir(xdg, 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(xdg, 0o1777); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"root", "job user"} {
		t.Run(who, func(t *testing.T) {
			ws := filepath.Join(e.base, "docs-"+strings.ReplaceAll(who, " ", "-"))
			writeFiles(t, ws, map[string]string{"agent.py": "print(open('README.md').read())\n", "README.md": "an agent\n"})
			gitRepo(t, ws)
			cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
			cmd.Dir = ws
			cmd.Env = append(append([]string{}, e.goEnv...), "SYSGATE="+e.checkout, "TMPDIR="+tmp, "XDG_CACHE_HOME="+xdg)
			// python3 on PATH is the sample agent's interpreter.
			cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(python)+":"+e.goDir+":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
			if who == "job user" {
				if err := chownTreeTo(ws, int(u.UID), int(u.GID)); err != nil {
					t.Fatal(err)
				}
				// Its own module cache: root's is private (the
				// script builds the dry run as the job user).
				modcache := filepath.Join(e.base, "gomod-job")
				if err := os.MkdirAll(modcache, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Chown(modcache, int(u.UID), int(u.GID)); err != nil {
					t.Fatal(err)
				}
				// A sysgate checkout of the job user's own, as the
				// action's is on a runner (git refuses another user's
				// tree to the build's VCS stamp).
				own := filepath.Join(e.base, "sysgate-job")
				testutil.CopyWorkTree(t, e.checkout, own)
				if err := chownTreeTo(own, int(u.UID), int(u.GID)); err != nil {
					t.Fatal(err)
				}
				cmd.Env = append(cmd.Env, jobUserEnv(t, e, u)...)
				cmd.Env = append(cmd.Env, "SYSGATE="+own)
				cmd.Env = append(cmd.Env, "GOMODCACHE="+modcache, "GOFLAGS=-modcacherw")
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: []uint32{}}}
			}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("the documented block failed: %v\n%s", err, out.String())
			}
			log := out.String()
			rec, chk, ok := strings.Cut(log, "  verdict=recorded\n")
			if !ok || strings.Contains(rec, "verdict=clean") || !strings.Contains(chk, "verdict=clean") {
				t.Errorf("want verdict=recorded from the record, then verdict=clean from the check:\n%s", log)
			}
			if _, err := os.Stat(filepath.Join(ws, "sysgate-reports")); !os.IsNotExist(err) {
				t.Errorf("the dry run left sysgate-reports in the repository (%v)", err)
			}
			st, err := exec.Command("git", "-c", "safe.directory=*", "-C", ws, "status", "--porcelain", "--untracked-files=all").Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(st)); got != "?? agent.yaml" {
				t.Errorf("the repository holds more than the applied patch's agent.yaml:\n%s", got)
			}
		})
	}
}
