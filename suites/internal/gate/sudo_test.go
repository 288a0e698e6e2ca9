package gate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/suites/internal/fixture"
)

// `sudo make security-test`, run for real by an unprivileged user from a
// checkout of their own: the embedded suites pass, and every agent ran as
// that user (issue 13), not as root.
func TestSecurityTestThroughSudo(t *testing.T) {
	testutil.RequireAudit(t)
	u := testutil.RequireSudoUser(t)
	checkout := filepath.Join(u.Home, fmt.Sprintf("checkout-%d", os.Getpid()))
	if err := os.RemoveAll(checkout); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(checkout) })
	copyCheckout(t, filepath.Dir(fixture.SuitesDir()), checkout)
	if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", u.UID, u.GID), checkout).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v: %s", err, out)
	}

	// The user's own PATH does not matter: sudo replaces it with its
	// secure_path, and the Makefile finds Go by itself.
	cmd := u.Sudo("/usr/bin:/bin", "make", "--no-print-directory", "security-test")
	cmd.Dir = checkout
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("sudo make security-test as %s: %v\n%s", u.Name, err, out.String())
	}
	report, err := ci.Load(ci.LoadOptions{}, filepath.Join(checkout, "out", "security-test.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d runs, e.g. %s as %d", len(report.Runs), report.Runs[0].Spec, report.Runs[0].UID)
	if len(report.Runs) < 10 {
		t.Fatalf("only %d runs in the report:\n%s", len(report.Runs), out.String())
	}
	for _, r := range report.Runs {
		if r.UID != u.UID || r.GID != u.GID {
			t.Errorf("%s: the agent ran as %d:%d, want %s (%d:%d)", r.Spec, r.UID, r.GID, u.Name, u.UID, u.GID)
		}
	}
}

// `make security-test` run for real by a user without root or sudo, from
// a checkout of their own: the suites pick the notify backend by
// themselves, pass, and the summary names the backend (issue 15).
func TestSecurityTestWithoutRoot(t *testing.T) {
	u := testutil.RequireSudoUser(t) // an account of its own, and root to become it
	testutil.RequireCommand(t, "setpriv", "runs make as that user")
	// Held as a run holds it, so no fault spec that takes the kernel for
	// itself (withKernelFault) runs meanwhile: one binds a directory over
	// /proc/PID on the host, and while it does the kernel refuses every
	// unprivileged run's own /proc (procfs not fully visible: EPERM).
	auditctltest.HoldTuning(t)
	checkout := filepath.Join(u.Home, fmt.Sprintf("unprivileged-%d", os.Getpid()))
	if err := os.RemoveAll(checkout); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(checkout) })
	copyCheckout(t, filepath.Dir(fixture.SuitesDir()), checkout)
	// The user cannot read root's module cache: the checkout vendors the
	// modules it builds (Go uses vendor/ by itself), so only the tools
	// run with `go run pkg@version` come from the proxy.
	vendor := exec.Command("go", "mod", "vendor")
	vendor.Dir = checkout
	if out, err := vendor.CombinedOutput(); err != nil {
		t.Fatalf("go mod vendor: %v: %s", err, out)
	}
	if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", u.UID, u.GID), checkout).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v: %s", err, out)
	}
	goBin := filepath.Dir(testutil.RequireCommand(t, "go", "builds the suites"))
	cmd := exec.Command("setpriv", "--reuid", fmt.Sprint(u.UID), "--regid", fmt.Sprint(u.GID), "--clear-groups",
		"env", "-i", "HOME="+u.Home, "PATH="+goBin+":/usr/bin:/bin", "GOCACHE="+filepath.Join(u.Home, ".cache", "go-build"),
		"make", "--no-print-directory", "security-test")
	cmd.Dir = checkout
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("make security-test as %s without root: %v\n%s", u.Name, err, out.String())
	}
	if !bytes.Contains(out.Bytes(), []byte("Backend: notify (auto: audit unavailable: no CAP_AUDIT_CONTROL")) {
		t.Errorf("the summary does not name the notify backend:\n%s", out.String())
	}
	report, err := ci.Load(ci.LoadOptions{}, filepath.Join(checkout, "out", "security-test.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Runs) < 10 {
		t.Fatalf("only %d runs in the report:\n%s", len(report.Runs), out.String())
	}
	for _, r := range report.Runs {
		if r.Backend != "notify" || r.UID != u.UID {
			t.Errorf("%s: backend %q, agent uid %d; want notify as %d", r.Spec, r.Backend, r.UID, u.UID)
		}
	}
	t.Logf("%d runs on notify as %s", len(report.Runs), u.Name)
}

// copyCheckout copies the files git knows of (committed or not, minus the
// ignored ones) and the installed MCP servers, so the copy needs no
// network and tests the working tree.
func copyCheckout(t *testing.T, from, to string) {
	t.Helper()
	testutil.CopyWorkTree(t, from, to)
	sh := `cp -a "$1/suites/node_modules" "$2/suites/" && git -C "$2" init -q`
	if out, err := exec.Command("sh", "-c", sh, "sh", from, to).CombinedOutput(); err != nil {
		t.Fatalf("copy the checkout: %v: %s", err, out)
	}
}
