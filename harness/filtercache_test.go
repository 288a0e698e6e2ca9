package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// cacheFixture is a one-file baseline loaded through the in-process
// cache (so every file has a sum) and a cache directory root owns.
func cacheFixture(t *testing.T, syscalls ...string) (*cachedProfile, *filterCache) {
	t.Helper()
	testutil.RequireRoot(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.yaml")
	body := "version: 1\nsyscalls:\n  " + scmp.Native().String() + ":\n"
	for _, s := range syscalls {
		body += "    - " + s + "\n"
	}
	writeFile(t, path, body)
	p, err := baseline.LoadStackFor(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := fileSum(path)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(dir, "filters")
	return &cachedProfile{profile: p, sums: map[string][32]byte{path: sum}}, &filterCache{dir: cacheDir}
}

// The audit backend's options: the expensive filter the cache is for.
var auditOptions = compile.Options{Programs: true}

func TestFilterCacheGivesBackWhatWasCompiled(t *testing.T) {
	e, fc := cacheFixture(t, "read", "write", "exit_group")
	first, err := fc.compileCached(e.profile, e.sums, nil, baseline.ModeCheck, auditOptions)
	if err != nil {
		t.Fatal(err)
	}
	key, ok := fc.key(e.profile.Files(), e.sums, nil, baseline.ModeCheck, auditOptions)
	if !ok {
		t.Fatal("no key for a profile whose files have sums")
	}
	cached := fc.load(key, baseline.ModeCheck)
	if cached == nil {
		t.Fatalf("nothing cached under %s after a compile", fc.dir)
	}
	fresh, err := compile.Compile(e.profile, baseline.ModeCheck, auditOptions)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cached, fresh) || !reflect.DeepEqual(first, fresh) {
		t.Fatalf("cached filter differs from a fresh compile: %d vs %d instructions", len(cached.Program), len(fresh.Program))
	}
	// Another mode, other options or another file content is another key.
	for name, other := range map[string]func() (string, bool){
		"mode": func() (string, bool) {
			return fc.key(e.profile.Files(), e.sums, nil, baseline.ModeEnforce, auditOptions)
		},
		"options": func() (string, bool) {
			return fc.key(e.profile.Files(), e.sums, nil, baseline.ModeCheck, compile.Options{Notify: true})
		},
		"content": func() (string, bool) {
			sums := map[string][32]byte{}
			for f, s := range e.sums {
				s[0]++
				sums[f] = s
			}
			return fc.key(e.profile.Files(), sums, nil, baseline.ModeCheck, auditOptions)
		},
	} {
		if k, ok := other(); !ok || k == key {
			t.Errorf("%s: key %q (%v), want one other than %q", name, k, ok, key)
		}
	}
}

// A planted filter is used only from a file and a directory that root
// alone may write: the test plants one that differs from the compiled
// filter and sees it taken, then refused once others may write.
func TestFilterCacheRefusesFilesOthersCanWrite(t *testing.T) {
	e, fc := cacheFixture(t, "read", "exit_group")
	key, _ := fc.key(e.profile.Files(), e.sums, nil, baseline.ModeCheck, auditOptions)
	filter, err := compile.Compile(e.profile, baseline.ModeCheck, auditOptions)
	if err != nil {
		t.Fatal(err)
	}
	planted := *filter
	planted.Program = append(planted.Program[:0:0], filter.Program...)
	planted.Program[len(planted.Program)-1].K ^= 1
	fc.store(key, &planted)
	file := filepath.Join(fc.dir, key)
	if got := fc.load(key, baseline.ModeCheck); got == nil || reflect.DeepEqual(got.Program, filter.Program) {
		t.Fatal("the stored filter was not taken from a root-only file: the test proves nothing")
	}
	for _, tc := range []struct {
		name       string
		path       string
		mode, back os.FileMode
	}{
		{"file writable by others", file, 0o666, 0o600},
		{"file writable by its group", file, 0o620, 0o600},
		{"directory writable by others", fc.dir, 0o777, 0o700},
	} {
		if err := os.Chmod(tc.path, tc.mode); err != nil {
			t.Fatal(err)
		}
		if got := fc.load(key, baseline.ModeCheck); got != nil {
			t.Errorf("%s: a filter was taken", tc.name)
		}
		if got, err := fc.compileCached(e.profile, e.sums, nil, baseline.ModeCheck, auditOptions); err != nil || !reflect.DeepEqual(got.Program, filter.Program) {
			t.Errorf("%s: compileCached did not compile anew (%v)", tc.name, err)
		}
		if err := os.Chmod(tc.path, tc.back); err != nil {
			t.Fatal(err)
		}
	}
	// A program cut short is not taken.
	cut := newCachedFilter(key, &planted)
	cut.Program = cut.Program[:len(cut.Program)-3]
	if got := cut.filter(); got != nil {
		t.Error("a program of a length no sock_filter array has was unpacked")
	}
	// A file that names another key (renamed into place) is not taken.
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(newCachedFilter("other", &planted)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := fc.load(key, baseline.ModeCheck); got != nil {
		t.Error("a filter stored for another key was taken")
	}
}

// A run asked to cache writes its filter, and the next process's run
// (simulated by emptying the in-process cache) loads it: the test
// swaps the cached program for record mode's, which logs everything,
// and the second check of /bin/true then finds violations.
func TestRunWithFilterCache(t *testing.T) {
	testutil.RequireAudit(t)
	if !hasCap(capSysAdmin) {
		t.Skip("[root]: the filter cache needs CAP_SYS_ADMIN (the fence)")
	}
	saved := filterCacheDir
	filterCacheDir = filepath.Join(t.TempDir(), "filters")
	t.Cleanup(func() { filterCacheDir = saved })
	path := trueBaseline(t)
	run := func() *verdict.Result {
		t.Helper()
		profileCache.Lock()
		clear(profileCache.entries)
		profileCache.Unlock()
		return mustRun(t, Agent{Command: []string{"/bin/true"}}, WithBaselines(path), WithBackend(verdict.BackendAudit), WithFilterCache())
	}
	if r := run(); r.Verdict != verdict.VerdictClean {
		t.Fatalf("first run: %s", summary(r))
	}
	entries, err := os.ReadDir(filterCacheDir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache holds %v (%v), want one filter", entries, err)
	}
	file := filepath.Join(filterCacheDir, entries[0].Name())
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c cachedFilter
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	logAll, err := compile.Compile(nil, baseline.ModeRecord, compile.Options{Programs: true})
	if err != nil {
		t.Fatal(err)
	}
	c.Program = packProgram(logAll.Program)
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(); r.Verdict != verdict.VerdictViolation {
		t.Fatalf("second run did not load the cached filter: %s", summary(r))
	}
}
