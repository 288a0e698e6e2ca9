package gatetest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// go test runs a spec in its package's directory: a relative
// SYSGATE_OBSERVATIONS=obs must still mean obs beside go.mod, where docs/
// mcp.md's next command (sysgate report pr-body ... obs/*.json) looks.
func TestRelativeEnvPathsAreTakenFromTheModuleRoot(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(root, "security", "deep")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	env := map[string]string{EnvObservations: "obs"}
	dir, err := observationDir(func(k string) string { return env[k] })
	if want := filepath.Join(root, "obs"); err != nil || dir != want {
		t.Errorf("SYSGATE_OBSERVATIONS=obs from %s: %q, %v; want %q", pkg, dir, err, want)
	}
	for _, abs := range []string{"/tmp/obs", ""} {
		env[EnvObservations] = abs
		if dir, err := observationDir(func(k string) string { return env[k] }); err != nil || dir != abs {
			t.Errorf("SYSGATE_OBSERVATIONS=%q: %q, %v; want it unchanged", abs, dir, err)
		}
	}
	if got := moduleRootOf("/"); got != "" {
		t.Errorf("moduleRootOf(/) = %q; want none", got)
	}
}

// docs/mcp.md's record loop as written: from the module's root,
// SYSGATE_MODE=record SYSGATE_OBSERVATIONS=obs go test ./security/, then
// sysgate report pr-body ... obs/*.json, also from the root. The spec
// runs in security/; its observation must land where the glob looks.
func TestDocumentedRecordLoopFindsItsObservations(t *testing.T) {
	doc, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	rec := regexp.MustCompile("`SYSGATE_MODE=record SYSGATE_OBSERVATIONS=(\\S+) go test \\./(\\S+)/` records `(\\S+)`").FindStringSubmatch(text)
	body := regexp.MustCompile("`sysgate report pr-body --write --baselines \\S+ (\\S+)`").FindStringSubmatch(text)
	if rec == nil || body == nil {
		t.Fatalf("docs/mcp.md no longer has the record command and the pr-body command this test runs")
	}
	dir, pkg, recorded, glob := rec[1], rec[2], rec[3], body[1]
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, pkg), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, pkg)) // where go test runs the spec
	env := map[string]string{EnvMode: "record", EnvObservations: dir}
	obs, err := observationDir(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	file := observationFile(obs, "my-mcp-server")
	if want := filepath.Join(root, recorded); file != want {
		t.Errorf("the spec records %s; docs/mcp.md says %s", file, want)
	}
	if ok, _ := filepath.Match(filepath.Join(root, glob), file); !ok {
		t.Errorf("%s, run from %s, does not find %s", glob, root, file)
	}
}
