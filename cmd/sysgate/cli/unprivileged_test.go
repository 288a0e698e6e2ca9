package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// unprivileged is a sysgate binary in a directory every user can read,
// and a way to run it as another user or inside a new user namespace.
type unprivileged struct {
	dir, bin string
}

func newUnprivileged(t *testing.T) unprivileged {
	t.Helper()
	testutil.RequireRoot(t) // to drop to another uid, and build a userns for real
	dir, err := os.MkdirTemp("", "sysgate-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sysgate")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/sysgate/sysgate/cmd/sysgate").CombinedOutput(); err != nil {
		t.Fatalf("build sysgate: %v\n%s", err, out)
	}
	return unprivileged{dir, bin}
}

// run runs sysgate through wrap (setpriv to a uid, unshare -Ur) with a
// clean environment, and decodes its JSON result when it printed one.
func (u unprivileged) run(t *testing.T, wrap []string, args ...string) (int, *verdict.Result, string) {
	t.Helper()
	argv := append(append(slices.Clone(wrap), "env", "-i", "HOME="+u.dir, "PATH=/usr/bin:/bin", u.bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = u.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%v: %v", argv, err)
	}
	var r *verdict.Result
	if json.Valid(stdout.Bytes()) && stdout.Len() > 0 {
		r = &verdict.Result{}
		if err := json.Unmarshal(stdout.Bytes(), r); err != nil {
			t.Fatal(err)
		}
	}
	return cmd.ProcessState.ExitCode(), r, stdout.String() + stderr.String()
}

var asNobody = []string{"setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"}

// Without root the gate runs on the notify backend, with the same
// verdicts as root on audit: a clean check passes, a new syscall fails
// with the same violations, enforce refuses it. Both as another uid and
// inside a new user namespace, the way a container looks from inside.
func TestCheckWithoutRoot(t *testing.T) {
	testutil.RequireAudit(t) // the audit side of the comparison
	u := newUnprivileged(t)
	testutil.RequireCommand(t, "setpriv", "drops to another uid")
	testutil.RequireCommand(t, "unshare", "makes a user namespace")
	base := filepath.Join(u.dir, "sh.yaml")
	benign := []string{"/bin/sh", "-c", "echo hi; ls / >/dev/null"}
	// mkdir, then a TCP socket: what the benign run never did.
	changed := []string{"/bin/sh", "-c", "echo hi; ls / >/dev/null; mkdir " + filepath.Join(u.dir, "made") + "; python3 -c 'import socket; socket.socket().close()'"}
	if code, _, out := u.run(t, asNobody, append([]string{"record", "--runs", "1", "-o", base, "--"}, benign...)...); code != ExitOK {
		t.Fatalf("record as nobody: exit %d\n%s", code, out)
	}
	// The audit side, as root: the same check, the same agent uid.
	code, audit, out := u.run(t, nil, append([]string{"check", "--format", "json", "--backend", "audit", "--user", "65534:65534", "-b", base, "--"}, changed...)...)
	if code != ExitViolation || audit == nil {
		t.Fatalf("check on audit: exit %d\n%s", code, out)
	}
	_ = os.Remove(filepath.Join(u.dir, "made"))
	for _, c := range []struct {
		name string
		wrap []string
		note string // why auto picked notify
	}{
		{"as nobody", asNobody, "CAP_AUDIT_CONTROL"},
		{"in a new user namespace", []string{"unshare", "-Ur"}, "user namespace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, r, out := u.run(t, c.wrap, append([]string{"check", "--format", "json", "-b", base, "--"}, benign...)...)
			if code != ExitOK || r == nil || r.Backend != verdict.BackendNotify || !strings.Contains(r.BackendNote, c.note) {
				t.Fatalf("clean check: exit %d\n%s", code, out)
			}
			code, r, out = u.run(t, c.wrap, append([]string{"check", "--format", "json", "-b", base, "--"}, changed...)...)
			_ = os.Remove(filepath.Join(u.dir, "made"))
			if code != ExitViolation || r == nil {
				t.Fatalf("check of the changed agent: exit %d\n%s", code, out)
			}
			if got, want := violationNames(r), violationNames(audit); !slices.Equal(got, want) {
				t.Fatalf("violations on notify %v; on audit %v", got, want)
			}
			for _, v := range r.Violations {
				if v.PID <= 0 || v.Exe == "" {
					t.Errorf("violation %s not attributed: pid %d exe %q", v.Syscall, v.PID, v.Exe)
				}
			}
			// The text report reads as audit's does, naming the backend.
			_, _, text := u.run(t, c.wrap, append([]string{"check", "-b", base, "--"}, changed...)...)
			_ = os.Remove(filepath.Join(u.dir, "made"))
			for _, want := range []string{"VIOLATION", "Outside the baseline:", "mkdir", "socket", "backend: notify (auto: audit unavailable"} {
				if !strings.Contains(text, want) {
					t.Errorf("text report lacks %q:\n%s", want, text)
				}
			}
			// enforce: the mkdir program (outside the recorded programs)
			// is refused, and reported.
			code, r, out = u.run(t, c.wrap, append([]string{"enforce", "--format", "json", "-b", base, "--"}, changed...)...)
			if code != ExitViolation || r == nil || !slices.ContainsFunc(r.ProgramViolations, func(v verdict.ProgramViolation) bool { return v.Path == "/usr/bin/mkdir" }) {
				t.Fatalf("enforce: exit %d\n%s", code, out)
			}
			if _, err := os.Stat(filepath.Join(u.dir, "made")); err == nil {
				t.Fatalf("enforce let mkdir through")
			}
		})
	}
}

func violationNames(r *verdict.Result) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Syscall)
	}
	return out
}

// An agent that tries to kill its supervisor (same uid, no root): in a
// user namespace of the run's own it cannot even see sysgate, so the run
// goes on and catches what it does next; where no user namespace can be
// made (nouserns), it can, and then leaves no clean verdict behind:
// sysgate dies of the signal (a failing step in CI), and the agent's
// calls that would have been held fail (ENOSYS).
func TestAgentKillingItsSupervisorFailsTheRun(t *testing.T) {
	u := newUnprivileged(t)
	testutil.RequireCommand(t, "setpriv", "drops to another uid")
	testutil.RequireCommand(t, "gcc", "builds the nouserns wrapper")
	nouserns := filepath.Join(u.dir, "nouserns")
	if out, err := exec.Command("gcc", "-O1", "-o", nouserns, "../../../suites/faults/testdata/nouserns.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc nouserns.c: %v\n%s", err, out)
	}
	base := filepath.Join(u.dir, "sh.yaml")
	benign := []string{"/bin/sh", "-c", "echo hi"}
	if code, _, out := u.run(t, asNobody, append([]string{"record", "--runs", "1", "-o", base, "--"}, benign...)...); code != ExitOK {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	result := filepath.Join(u.dir, "result.json")
	// The agent looks for sysgate by its command line (readable by any
	// user who can see the process) and SIGKILLs it, then goes on outside
	// its baseline.
	attack := []string{"/bin/sh", "-c", "pkill -KILL -f '^" + u.bin + " check' ; sleep 0.2; mkdir " + filepath.Join(u.dir, "after")}
	args := append([]string{"check", "--format", "json", "--result", result, "-b", base, "--"}, attack...)

	code, r, out := u.run(t, asNobody, args...)
	if code != ExitViolation || r == nil || r.IsolationUnavailable != "" || !slices.ContainsFunc(r.ProgramViolations, func(v verdict.ProgramViolation) bool { return v.Path == "/usr/bin/mkdir" }) {
		t.Fatalf("isolated: the agent should not have found sysgate, and its mkdir should be caught: exit %d\n%s", code, out)
	}

	// Without isolation the agent finds sysgate in /proc, unless the
	// files observer serves its opens: that refuses names through
	// sysgate's own /proc entry. --no-files leaves /proc to the agent.
	_ = os.Remove(result)
	args = append([]string{"check", "--no-files", "--format", "json", "--result", result, "-b", base, "--"}, attack...)
	code, _, out = u.run(t, append([]string{nouserns}, asNobody...), args...)
	if code == ExitOK || code == ExitAgentFailed {
		t.Fatalf("a run whose supervisor was killed exited %d:\n%s", code, out)
	}
	if _, err := os.Stat(result); err == nil {
		t.Fatalf("a result file was written for a run whose supervisor died (exit %d):\n%s", code, out)
	}
	t.Logf("without isolation, sysgate killed by its agent: exit %d", code)
}
