package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/internal/scmp"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProfileCacheFollowsEdits(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.yaml")
	agent := filepath.Join(dir, "agent.yaml")
	arch := scmp.Native().String()
	writeFile(t, base, "version: 1\nsyscalls:\n  "+arch+":\n    - read\n")
	writeFile(t, agent, "version: 1\nextends:\n  - base.yaml\nsyscalls:\n  "+arch+":\n    - write\n")
	check := func(*baseline.Profile) baseline.Mode { return baseline.ModeCheck }
	load := func() (*baseline.Profile, *compile.Filter) {
		t.Helper()
		p, mode, f, err := loadCompiled([]string{agent}, nil, check, compile.Options{}, nil)
		if err != nil || mode != baseline.ModeCheck || f == nil {
			t.Fatalf("load: %v mode %v filter %v", err, mode, f)
		}
		return p, f
	}
	p1, f1 := load()
	p2, f2 := load()
	if p1 != p2 || f1 != f2 {
		t.Errorf("unchanged files were loaded or compiled again")
	}
	if _, _, f3, err := loadCompiled([]string{agent}, nil, check, compile.Options{Linear: true}, nil); err != nil || f3 == f1 {
		t.Errorf("other compile options got the cached filter (%v)", err)
	}
	// An edit to the base, not to the file named: the stack is checked.
	writeFile(t, base, "version: 1\nsyscalls:\n  "+arch+":\n    - read\n    - getpid\n")
	p4, f4 := load()
	if p4 == p1 || f4 == f1 || !p4.Allows(scmp.Native(), "getpid") {
		t.Errorf("the edited base was not reloaded: %s", p4)
	}
	writeFile(t, base, "version: 1\nsyscalls:\n  "+arch+":\n    - opnat\n")
	if _, _, _, err := loadCompiled([]string{agent}, nil, check, compile.Options{}, nil); err == nil {
		t.Errorf("a broken edit was served from the cache")
	}
}
