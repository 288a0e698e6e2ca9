package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
)

// rareAgent counts its runs in the file its argument names and, on the
// run the count is 1 (the second), calls getpgid and reads /etc/hostname:
// a rare path on a schedule the test sets, not a random one. With
// failOn it exits 3 on that run instead.
func rareAgent(py, counter string, failOn bool) []string {
	rare := "os.getpgid(0); open('/etc/hostname').read()"
	if failOn {
		rare = "sys.exit(3)"
	}
	script := "import os, sys\np = sys.argv[1]\nn = int(open(p).read())\nopen(p, 'w').write(str(n + 1))\nif n == 1:\n    " + rare + "\n"
	return []string{py, "-I", "-S", "-c", script, counter}
}

func setCounter(t *testing.T, path string, n string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(n), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Record runs the agent until two runs in a row add nothing: the second
// run's rare path is in the file, noted as seen in 1 of 4 runs, and the
// summary says so; the file then checks clean on both behaviours. One
// run (--runs 1) misses it, and a check of the rare behaviour fails.
func TestRecordUntilStable(t *testing.T) {
	py := testutil.Python(t)
	for _, backend := range []string{"audit", "notify"} {
		t.Run(backend, func(t *testing.T) {
			requireBackend(t, backend)
			dir := t.TempDir()
			counter, path := filepath.Join(dir, "counter"), filepath.Join(dir, "agent.yaml")
			setCounter(t, counter, "0")
			agent := rareAgent(py, counter, false)
			code, _, stderr := run(t, append([]string{"record", "--backend", backend, "-o", path, "--"}, agent...)...)
			if code != ExitOK {
				t.Fatalf("record: code %d\n%s", code, stderr)
			}
			arch := scmp.Native().String()
			for _, want := range []string{
				"sysgate: record run 2 added ",
				"sysgate: record run 3 added nothing\n",
				"sysgate: recorded in 4 runs (stable after run 2: runs 3 and 4 added nothing)\n",
				arch + " getpgid (1 of 4 runs)",
				"read /etc/hostname (1 of 4 runs)",
			} {
				if !strings.Contains(stderr, want) {
					t.Errorf("record's report lacks %q:\n%s", want, stderr)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"- getpgid # seen in 1 of 4 record runs\n", "- /etc/hostname # seen in 1 of 4 record runs\n"} {
				if !strings.Contains(string(data), want) {
					t.Errorf("the baseline lacks %q:\n%s", want, data)
				}
			}
			for _, n := range []string{"1", "7"} {
				setCounter(t, counter, n)
				if code, stdout, stderr := run(t, append([]string{"check", "--backend", backend, "-b", path, "--"}, agent...)...); code != ExitOK {
					t.Errorf("check with the counter at %s: code %d\n%s%s", n, code, stdout, stderr)
				}
			}

			one := filepath.Join(dir, "one.yaml")
			setCounter(t, counter, "0")
			code, _, stderr = run(t, append([]string{"record", "--runs", "1", "--backend", backend, "-o", one, "--"}, agent...)...)
			if code != ExitOK || strings.Contains(stderr, "recorded in") || strings.Contains(stderr, "record run") {
				t.Fatalf("record --runs 1: code %d, or it reported runs:\n%s", code, stderr)
			}
			setCounter(t, counter, "1")
			code, stdout, stderr := run(t, append([]string{"check", "--backend", backend, "-b", one, "--"}, agent...)...)
			if code != ExitViolation || !strings.Contains(stdout+stderr, "getpgid") {
				t.Errorf("check of the rare path against one run's baseline: code %d, want %d naming getpgid\n%s%s", code, ExitViolation, stdout, stderr)
			}
		})
	}
}

// A run whose agent fails stops the recording with that verdict, and
// nothing is written from the runs before it.
func TestRecordStopsAtAFailedRun(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	dir := t.TempDir()
	counter, path := filepath.Join(dir, "counter"), filepath.Join(dir, "agent.yaml")
	setCounter(t, counter, "0")
	code, _, stderr := run(t, append([]string{"record", "-o", path, "--"}, rareAgent(py, counter, true)...)...)
	if code != ExitAgentFailed || !strings.Contains(stderr, "not writing "+path+": in run 2 the agent exited 3") {
		t.Errorf("record: code %d, want %d naming run 2\n%s", code, ExitAgentFailed, stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s was written", path)
	}
	if data, _ := os.ReadFile(counter); string(data) != "2" {
		t.Errorf("the agent ran %s times, want 2: record went on after the failed run", data)
	}
}

func TestRecordRunsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"record", "-o", filepath.Join(t.TempDir(), "x.yaml"), "--runs", "-1", "--", "/bin/true"},
		{"record", "-o", filepath.Join(t.TempDir(), "x.yaml"), "--max-runs", "0", "--", "/bin/true"},
	} {
		if code, _, stderr := run(t, args...); code != ExitUsage || !strings.Contains(stderr, "--runs/--max-runs") {
			t.Errorf("%v: code %d\n%s", args, code, stderr)
		}
	}
}
