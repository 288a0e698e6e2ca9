package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// An incremental record (record --against) allows the committed baseline
// in the kernel and logs only the rest. Whatever the changed agent does
// beyond its baseline (a new syscall, a new argument class of a syscall
// the baseline allows, a new program) lands in the file; nothing the file
// held is dropped, even what the changed agent no longer does (stale
// entries are not checked); and a check of the changed agent against the
// updated file is clean. On both backends.
func TestIncrementalRecordAddsWhatIsNew(t *testing.T) {
	py := testutil.Python(t)
	trueBin, err := filepath.EvalSymlinks("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	well := "import os, socket; socket.socket(socket.AF_UNIX).close(); os.getppid()"
	changed := "import os, socket, subprocess; socket.socket(socket.AF_UNIX).close(); socket.socket(socket.AF_INET).close(); " +
		"os.getpgid(0); subprocess.run([" + quote(trueBin) + "], check=True)"
	for _, backend := range []string{"audit", "notify"} {
		t.Run(backend, func(t *testing.T) {
			requireBackend(t, backend)
			dir := t.TempDir()
			path, result := filepath.Join(dir, "agent.yaml"), filepath.Join(dir, "result.json")
			if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "--backend", backend, "-o", path, "--", py, "-I", "-S", "-c", well); code != ExitOK {
				t.Fatalf("record: %d\n%s", code, stderr)
			}
			before, err := baseline.LoadStack(path)
			if err != nil {
				t.Fatal(err)
			}
			arch := scmp.Native()
			for _, key := range []string{"socket(AF_INET)", "getpgid"} {
				if before.Allows(arch, key) {
					t.Fatalf("the well-behaved agent's baseline allows %s already: the test proves nothing", key)
				}
			}
			code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "--backend", backend, "--against", path, "--result", result, "--", py, "-I", "-S", "-c", changed)
			if code != ExitOK || !strings.Contains(stderr, "stale entries not checked") || !strings.Contains(stderr, "wrote "+path) {
				t.Fatalf("incremental record: code %d\n%s", code, stderr)
			}
			after, err := baseline.LoadStack(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"socket(AF_INET)", "getpgid"} {
				if !after.Allows(arch, key) {
					t.Errorf("%s is new and was not added:\n%s", key, stderr)
				}
			}
			if !after.AllowsProgram(trueBin) {
				t.Errorf("the new program %s was not added:\n%s", trueBin, stderr)
			}
			for _, e := range before.Entries(arch) {
				if !after.Allows(arch, e.Name) {
					t.Errorf("%s was dropped (getppid is stale, and kept)", e.Name)
				}
			}
			if !after.Allows(arch, "getppid") {
				t.Errorf("the stale getppid was removed by an incremental record")
			}
			data, err := os.ReadFile(result)
			if err != nil {
				t.Fatal(err)
			}
			var r verdict.Result
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			if !r.Incremental || !r.Observed.Incremental || len(r.Unused) != 0 {
				t.Errorf("result: incremental %v, observation incremental %v, unused %v", r.Incremental, r.Observed.Incremental, r.Unused)
			}
			// The run logged what the baseline lacks, not the runtime's
			// start: a full record of the same agent sees far more.
			if names := r.Observed.Names(arch); slices.Contains(names, "getppid") || !slices.Contains(names, "getpgid") {
				t.Errorf("observed %v: want getpgid and not the allowed getppid", names)
			}
			if code, stdout, stderr := runAgentVerb(t, "check", "--backend", backend, "-b", path, "--", py, "-I", "-S", "-c", changed); code != ExitOK {
				t.Fatalf("check of the changed agent against the updated file: code %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

func TestIncrementalRecordBadInput(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--runs", "1", "--against", missing, "--", "/bin/true"}, "--against " + missing},
		{[]string{"record", "--runs", "1", "--against", missing, "--extends", missing, "--", "/bin/true"}, "--against and --extends"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: code %d, want %d naming %q\n%s", c.args, code, ExitUsage, c.want, stderr)
		}
	}
}

// requireBackend skips (or, under CI, fails) a subtest whose backend this
// machine cannot run: audit needs root and the audit kernel, notify a
// seccomp listener.
func requireBackend(t *testing.T, backend string) {
	t.Helper()
	if backend == "audit" {
		testutil.RequireAudit(t)
	} else if why := harness.NotifyUnavailable(); why != "" {
		testutil.Unavailable(t, "notify", why)
	}
}
