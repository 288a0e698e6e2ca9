package landlock

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// Landlock needs no privilege: a child running as nobody, with
// no_new_privs and no capability, restricts itself, and the file
// permissions that would let it read are overruled.
func TestRulesetUnprivileged(t *testing.T) {
	testutil.RequireRoot(t)
	abi := requireABI(t, 3)
	d := t.TempDir()
	// TempDir makes its parent 0700 too; nobody must reach the binary.
	for _, dir := range []string{filepath.Dir(d), d} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(d, "landlock.test")
	copyFile(t, os.Args[0], bin)
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	allowed, other := filepath.Join(d, "allowed"), filepath.Join(d, "other")
	for _, p := range []string{allowed, other} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs, _ := build(t, abi, []PathRule{{Path: allowed, Read: true}})
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	got := inCmd(t, cmd, rs, 0, "read "+allowed, "read "+other)
	expect(t, got, map[string]string{"read " + allowed: "ok", "read " + other: "EACCES"})
}
