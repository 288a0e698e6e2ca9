package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/tools/internal/actionrun"
)

// The action pinned by commit SHA installs the release whose tag points at
// that commit (issue 33 item 7), through the dry run, against a fake
// GitHub on loopback: its tags API and its release downloads. The release
// binary is a stand-in script (no build), so these runs take seconds; the
// gate step then stops at its own input check, which is not what they test.

const (
	pinnedSHA   = "0123456789abcdef0123456789abcdef01234567"
	untaggedSHA = "89abcdef0123456789abcdef0123456789abcdef"
	apiToken    = "ghs_fake-job-token"
)

// fakeRelease is the stand-in binary: enough of sysgate for the install
// and doctor steps.
const fakeRelease = `#!/bin/sh
case "$1" in
version) echo "sysgate v1.2.3 (the fake release)" ;;
*) exit 0 ;;
esac
`

// fakeGH records the call and answers as FAKE_GH_EXIT says.
const fakeGH = `#!/bin/sh
echo "$*" >>"$FAKE_GH_LOG"
echo "GH_TOKEN=$GH_TOKEN" >>"$FAKE_GH_LOG"
exit "${FAKE_GH_EXIT:-0}"
`

// fakeGitHub serves the action repository's tags and release assets.
type fakeGitHub struct {
	srv    *httptest.Server
	assets map[string][]byte // path under /sysgate/sysgate/releases/download/
	mu     sync.Mutex
	seen   []string // "PATH auth=yes|no"
}

func newFakeGitHub(t *testing.T, tags []map[string]any, assets map[string][]byte) *fakeGitHub {
	t.Helper()
	g := &fakeGitHub{assets: assets}
	tagsJSON, err := json.Marshal(tags)
	if err != nil {
		t.Fatal(err)
	}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.seen = append(g.seen, fmt.Sprintf("%s auth=%v", r.URL.Path, r.Header.Get("Authorization") == "Bearer "+apiToken))
		g.mu.Unlock()
		switch {
		case r.URL.Path == "/api/repos/sysgate/sysgate/tags":
			if tags == nil {
				http.Error(w, "rate limited", http.StatusForbidden)
				return
			}
			if r.URL.Query().Get("page") != "1" {
				_, _ = w.Write([]byte("[]"))
				return
			}
			_, _ = w.Write(tagsJSON)
		case strings.HasPrefix(r.URL.Path, "/sysgate/sysgate/releases/download/"):
			b, ok := g.assets[strings.TrimPrefix(r.URL.Path, "/sysgate/sysgate/releases/download/")]
			if !ok {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write(b)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *fakeGitHub) requests() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return strings.Join(g.seen, "\n")
}

// thisAsset is the release asset of the machine the test runs on.
func thisAsset(t *testing.T) string {
	t.Helper()
	switch runtime.GOARCH {
	case "amd64", "arm64":
		return "sysgate-linux-" + runtime.GOARCH
	}
	t.Skipf("no release binary for %s", runtime.GOARCH)
	return ""
}

func sha256Line(b []byte, name string) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) + "  " + name + "\n"
}

// pinRun is one dry run of the action pinned at ref against g.
type pinRun struct {
	res    *actionrun.Result
	out    string
	ghLog  string
	binDir string
}

func (p pinRun) log(t *testing.T, id string) string {
	t.Helper()
	j := job{res: *p.res}
	return j.stepLog(t, j.step(t, id))
}

func runPinned(t *testing.T, g *fakeGitHub, ref string, withGH bool, ghExit string) pinRun {
	t.Helper()
	checkout, err := filepath.Abs(checkoutDir)
	if err != nil {
		t.Fatal(err)
	}
	action, err := actionrun.LoadAction(filepath.Join(checkout, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// No Go on PATH (system directories only): a source build stops at
	// setup-go instead of building.
	bin := t.TempDir()
	path := "/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"
	if withGH {
		if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755); err != nil {
			t.Fatal(err)
		}
		path = bin + ":" + path
	} else if gh, err := lookPathIn(path, "gh"); err == nil {
		t.Skipf("a real gh is installed (%s): the run without gh cannot be made", gh)
	}
	ghLog := filepath.Join(t.TempDir(), "gh.log")
	out := t.TempDir()
	var log strings.Builder
	res, err := actionrun.Run(context.Background(), actionrun.Config{
		Action:    action,
		ActionDir: checkout,
		Workspace: t.TempDir(),
		Inputs:    map[string]string{},
		OutDir:    out,
		CacheDir:  t.TempDir(),
		Github: map[string]string{"action_ref": ref, "action_repository": "sysgate/sysgate",
			"api_url": g.srv.URL + "/api", "server_url": g.srv.URL, "token": apiToken},
		Env:    []string{"PATH=" + path, "HOME=" + t.TempDir(), "LANG=C.UTF-8", "FAKE_GH_LOG=" + ghLog, "FAKE_GH_EXIT=" + ghExit},
		Stdout: &log,
	})
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, log.String())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("dry run:\n%s\nrequests:\n%s", log.String(), g.requests())
		}
	})
	gh, _ := os.ReadFile(ghLog)
	p := pinRun{res: res, out: out, ghLog: string(gh)}
	if s := res.Step("plan"); s != nil {
		p.binDir = s.Outputs["bin-dir"]
	}
	return p
}

func lookPathIn(path, name string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func TestReleaseOfPinnedSHA(t *testing.T) {
	testutil.RequireCommand(t, "jq", "the plan step reads GitHub's tags API with jq")
	testutil.RequireCommand(t, "curl", "the action downloads with curl")
	asset := thisAsset(t)
	other := map[string]string{"sysgate-linux-amd64": "sysgate-linux-arm64", "sysgate-linux-arm64": "sysgate-linux-amd64"}[asset]
	binary := []byte(fakeRelease)
	// SHA256SUMS lists both arches, the other one first: only this
	// machine's line is checked.
	sums := sha256Line([]byte("the other arch"), other) + sha256Line(binary, asset)
	tags := []map[string]any{
		{"name": "v1", "commit": map[string]string{"sha": pinnedSHA}}, // the moving major tag: no release of its own
		{"name": "v1.2.3", "commit": map[string]string{"sha": pinnedSHA}},
		{"name": "v1.2.3-rc.1", "commit": map[string]string{"sha": pinnedSHA}},
		{"name": "v1.2.2", "commit": map[string]string{"sha": untaggedSHA[:39] + "0"}},
	}
	release := map[string][]byte{"v1.2.3/" + asset: binary, "v1.2.3/SHA256SUMS": []byte(sums)}

	t.Run("installs the release tagged at the SHA, provenance verified", func(t *testing.T) {
		g := newFakeGitHub(t, tags, release)
		p := runPinned(t, g, pinnedSHA, true, "0")
		plan := p.res.Step("plan")
		if plan.Outputs["from"] != "release" || plan.Outputs["release"] != "v1.2.3" {
			t.Fatalf("plan outputs from=%q release=%q, want release v1.2.3 (log: %s)", plan.Outputs["from"], plan.Outputs["release"], p.log(t, "plan"))
		}
		install := p.log(t, "install")
		if s := p.res.Step("install"); s.Outcome != actionrun.Success || !strings.Contains(install, "installed the release binary: sysgate v1.2.3 (the fake release)") {
			t.Fatalf("install %s:\n%s", s.Outcome, install)
		}
		for _, want := range []string{"attestation verify ", "--repo sysgate/sysgate", "--signer-workflow sysgate/sysgate/.github/workflows/release.yml",
			"--source-digest " + pinnedSHA, "GH_TOKEN=" + apiToken} {
			if !strings.Contains(p.ghLog, want) {
				t.Errorf("gh was not called with %q:\n%s", want, p.ghLog)
			}
		}
		if !strings.Contains(install, "build provenance verified") {
			t.Errorf("the install log does not say the provenance was verified:\n%s", install)
		}
		// The token goes to the API, never to a download.
		for _, line := range strings.Split(g.requests(), "\n") {
			api := strings.HasPrefix(line, "/api/")
			if strings.HasSuffix(line, "auth=true") != api {
				t.Errorf("request %s: the token belongs to API requests only", line)
			}
		}
	})

	t.Run("pinned to the major tag: the release at its commit", func(t *testing.T) {
		p := runPinned(t, newFakeGitHub(t, tags, release), "v1", true, "0")
		if plan := p.res.Step("plan"); plan.Outputs["from"] != "release" || plan.Outputs["release"] != "v1.2.3" {
			t.Fatalf("plan from=%q release=%q, want release v1.2.3:\n%s", plan.Outputs["from"], plan.Outputs["release"], p.log(t, "plan"))
		}
		if s := p.res.Step("install"); s.Outcome != actionrun.Success || !strings.Contains(p.ghLog, "attestation verify") {
			t.Errorf("install %s, gh calls %q:\n%s", s.Outcome, p.ghLog, p.log(t, "install"))
		}
	})

	t.Run("gh finds no provenance: refused", func(t *testing.T) {
		p := runPinned(t, newFakeGitHub(t, tags, release), pinnedSHA, true, "1")
		s := p.res.Step("install")
		if s.Outcome != actionrun.Failure || s.ExitCode != 3 || !strings.Contains(p.log(t, "install"), "no build provenance") {
			t.Errorf("install %s exit %d, want a failure with exit 3 naming the provenance:\n%s", s.Outcome, s.ExitCode, p.log(t, "install"))
		}
		if _, err := os.Stat(filepath.Join(p.binDir, "sysgate")); err == nil {
			t.Error("a release whose provenance failed was installed")
		}
	})

	t.Run("no gh: installed, and the log says the provenance was not verified", func(t *testing.T) {
		p := runPinned(t, newFakeGitHub(t, tags, release), pinnedSHA, false, "0")
		install := p.log(t, "install")
		if s := p.res.Step("install"); s.Outcome != actionrun.Success || !strings.Contains(install, "gh is not installed: the release's build provenance was not verified") {
			t.Errorf("install %s:\n%s", s.Outcome, install)
		}
	})

	t.Run("a binary that does not match SHA256SUMS is refused", func(t *testing.T) {
		tampered := map[string][]byte{"v1.2.3/" + asset: append([]byte(fakeRelease), '\n'), "v1.2.3/SHA256SUMS": []byte(sums)}
		p := runPinned(t, newFakeGitHub(t, tags, tampered), pinnedSHA, true, "0")
		s := p.res.Step("install")
		if s.Outcome != actionrun.Failure || !strings.Contains(p.log(t, "install"), "does not match the release's SHA256SUMS") {
			t.Errorf("install %s:\n%s", s.Outcome, p.log(t, "install"))
		}
		if p.ghLog != "" {
			t.Errorf("gh ran on a binary whose checksum failed:\n%s", p.ghLog)
		}
	})

	for _, c := range []struct {
		name, ref string
		tags      []map[string]any
		assets    map[string][]byte
		say       string
	}{
		{"a SHA no release tag points at: source, and it says so", untaggedSHA, tags, release, "no release of sysgate/sysgate is tagged at " + untaggedSHA + ": building from source"},
		{"the tags API refuses: source, and it says so", pinnedSHA, nil, release, "could not read the tags of sysgate/sysgate from " + "http://"},
		{"a release without this arch: source, and it says so", pinnedSHA, tags,
			map[string][]byte{"v1.2.3/" + other: []byte("x"), "v1.2.3/SHA256SUMS": []byte(sha256Line([]byte("x"), other))},
			"v1.2.3 (the release of " + pinnedSHA + ") has no " + asset + " in its SHA256SUMS: building from source"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if goBin, err := lookPathIn("/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin", "go"); err == nil {
				t.Skipf("go is in a system directory (%s): the source build would run", goBin)
			}
			p := runPinned(t, newFakeGitHub(t, c.tags, c.assets), c.ref, true, "0")
			plan := p.res.Step("plan")
			if plan.Outputs["from"] != "source" || plan.Outputs["release"] != "" || !strings.Contains(p.log(t, "plan"), c.say) {
				t.Errorf("plan from=%q release=%q, want source and %q in:\n%s", plan.Outputs["from"], plan.Outputs["release"], c.say, p.log(t, "plan"))
			}
		})
	}
}
