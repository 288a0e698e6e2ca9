package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// UserModule writes a Go module into dir as a user's repository would
// hold one, using sysgate from the checkout (a replace directive, the
// checkout's go directive and go.sum), plus files (slash paths to
// contents). It returns the environment that builds it offline: the
// module cache stands in for the proxy, so nothing is fetched.
func UserModule(t testing.TB, dir, checkout, module string, files map[string]string) []string {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(checkout, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if goVersion == nil {
		t.Fatalf("%s/go.mod: no go directive", checkout)
	}
	gosum, err := os.ReadFile(filepath.Join(checkout, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{
		"go.mod": fmt.Sprintf("module %s\n\ngo %s\n\nrequire github.com/sysgate/sysgate v0.0.0\n\nreplace github.com/sysgate/sysgate => %s\n",
			module, goVersion[1], checkout),
		"go.sum": string(gosum),
	}
	for name, text := range files {
		all[name] = text
	}
	for name, text := range all {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// GOFLAGS=-mod=mod: sysgate's requirements fill in the module's.
	return []string{"GOFLAGS=-mod=mod", "GOPROXY=" + CacheProxy(t) + ",off"}
}

// CacheProxy is the module cache's download directory as a GOPROXY entry
// (file://...): modules already fetched are served from it offline.
func CacheProxy(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	return "file://" + filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
}
