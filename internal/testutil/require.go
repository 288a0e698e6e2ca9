package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// TB is the part of testing.TB the gates need; Ginkgo's GinkgoT() has it too.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// InCI reports whether the tests run under CI, where skipping a privileged
// test is a failure.
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// skipOrFail skips with a tagged reason, or fails when running under CI.
func skipOrFail(t TB, tag, reason string) {
	t.Helper()
	msg := fmt.Sprintf("[%s]: %s", tag, reason)
	if InCI() {
		t.Fatalf("%s (CI=true: privileged tests must run, not skip)", msg)
		return
	}
	t.Skipf("%s", msg)
}

// RequireRoot skips (or under CI fails) unless the test runs as root.
func RequireRoot(t TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		skipOrFail(t, "root", "needs root (run: sudo make test)")
	}
}

// RequireFile skips (or under CI fails) when path is missing; for kernel
// interfaces such as /proc/sys/kernel/seccomp/actions_logged.
func RequireFile(t TB, path, why string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		skipOrFail(t, "kernel", fmt.Sprintf("%s: %v (%s)", path, err, why))
	}
}

// RequireAudit skips (or under CI fails) unless the test runs as root on a
// kernel with audit and seccomp's LOG action.
func RequireAudit(t TB) {
	t.Helper()
	RequireRoot(t)
	RequireFile(t, "/proc/self/loginuid", "kernel built without CONFIG_AUDITSYSCALL")
	RequireFile(t, "/proc/sys/kernel/seccomp/actions_logged", "kernel without seccomp LOG")
}

// RequireCommand skips (or under CI fails) when the program name is not on
// PATH, and returns its path.
func RequireCommand(t TB, name, why string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		skipOrFail(t, "tool", fmt.Sprintf("%s: %v (%s)", name, err, why))
	}
	return path
}

// Unavailable skips (or under CI fails) the test: what it needs is not
// here, for reason.
func Unavailable(t TB, tag, reason string) {
	t.Helper()
	skipOrFail(t, tag, reason)
}

// SkipOrFail skips with a tagged reason ("[tag]: reason"), or fails under
// CI, for a test whose precondition is missing on this machine (Debian's
// archive for the distribution suite, say).
func SkipOrFail(t TB, tag, reason string) {
	t.Helper()
	skipOrFail(t, tag, reason)
}
