package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// The three cases, from outside: each changed agent makes only
// syscalls its baseline already has, with other arguments. With argument
// classes check exits 1 and names the class; with them switched off the
// same run passes, which is the hole the classes close.
func TestArgumentClassesCatchWhatNamesMiss(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	file := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(file, []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unshare := "import ctypes; ctypes.CDLL(None, use_errno=True).unshare(%s)"
	for _, c := range []struct {
		name, well, changed, class, allowed string
	}{
		{"socket", "import socket; socket.socket(socket.AF_UNIX).close()",
			"import socket; socket.socket(socket.AF_INET).close()", "socket(AF_INET)", "socket(AF_UNIX)"},
		{"open", "import os; os.close(os.open(" + quote(file) + ", os.O_RDONLY))",
			"import os; os.close(os.open(" + quote(file) + ", os.O_WRONLY|os.O_CREAT|os.O_TRUNC))", "openat(create)", "openat(read)"},
		// An argument trick: AF_INET with the register's upper half set.
		// The kernel reads an int (AF_INET); so do the comparisons.
		{"socket-upper-bits", "import socket; socket.socket(socket.AF_UNIX).close()",
			"import ctypes, os; l = ctypes.CDLL(None, use_errno=True); l.syscall.restype = ctypes.c_long; " +
				"fd = l.syscall(ctypes.c_long(41), ctypes.c_long((1 << 32) | 2), ctypes.c_long(1), ctypes.c_long(0)); " +
				"assert fd >= 0, os.strerror(ctypes.get_errno()); os.close(fd)",
			"socket(AF_INET)", "socket(AF_UNIX)"},
		{"unshare", strings.Replace(unshare, "%s", "0x400", 1), // CLONE_FILES
			strings.Replace(unshare, "%s", "0x50000000", 1), // CLONE_NEWUSER|CLONE_NEWNET
			"unshare(CLONE_NEWUSER|CLONE_NEWNET)", "unshare(none)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name+".yaml")
			if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--", py, "-I", "-S", "-c", c.well); code != ExitOK {
				t.Fatalf("record: %d\n%s", code, stderr)
			}
			if code, stdout, stderr := runAgentVerb(t, "check", "-b", path, "--", py, "-I", "-S", "-c", c.well); code != ExitOK {
				t.Fatalf("check of the well-behaved agent: %d\n%s%s", code, stdout, stderr)
			}
			code, stdout, stderr := runAgentVerb(t, "check", "-b", path, "--format", "json", "--", py, "-I", "-S", "-c", c.changed)
			if code != ExitViolation || !strings.Contains(stdout, `"syscall": "`+c.class+`"`) || !strings.Contains(stdout, `"allowed": [`+"\n"+`        "`+c.allowed+`"`) {
				t.Fatalf("check of the changed agent: code %d, want 1 naming %s beside %s\n%s%s", code, c.class, c.allowed, stdout, stderr)
			}
			// The files gate would see the open one (a write where the
			// agent only read): off, to show what classes alone catch.
			code, stdout, stderr = runAgentVerb(t, "check", "--no-arg-classes", "--no-files", "-b", path, "--", py, "-I", "-S", "-c", c.changed)
			if code != ExitOK || !strings.Contains(stdout, "argument classes off") {
				t.Fatalf("without classes the changed agent should pass (the hole): code %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// Enforce runs the agent under the baseline's rules as an exported
// profile keeps them: the allowed class works, the other is refused.
func TestEnforceRefusesAClassOutsideTheBaseline(t *testing.T) {
	testutil.RequireAudit(t)
	py := testutil.Python(t)
	path := filepath.Join(t.TempDir(), "unix.yaml")
	well := "import socket; socket.socket(socket.AF_UNIX).close(); print('unix ok')"
	if code, _, stderr := runAgentVerb(t, "record", "--runs", "1", "-o", path, "--", py, "-I", "-S", "-c", well); code != ExitOK {
		t.Fatalf("record: %d\n%s", code, stderr)
	}
	changed := "import socket\ntry:\n    socket.socket(socket.AF_INET)\nexcept PermissionError as e:\n    print('refused', e.errno)\n"
	code, stdout, stderr := runAgentVerb(t, "enforce", "-b", path, "--", py, "-I", "-S", "-c", changed)
	if code != ExitViolation || !strings.Contains(stdout, "refused 1") || !strings.Contains(stdout, "socket(AF_INET)") {
		t.Fatalf("enforce: code %d, want 1 with the agent refused EPERM on socket(AF_INET)\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runAgentVerb(t, "enforce", "-b", path, "--", py, "-I", "-S", "-c", well); code != ExitOK || !strings.Contains(stdout, "unix ok") {
		t.Fatalf("enforce of the well-behaved agent: code %d\n%s%s", code, stdout, stderr)
	}
}

func quote(s string) string { return "'" + s + "'" }
