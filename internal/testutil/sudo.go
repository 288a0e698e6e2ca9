package testutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// SudoUserName is the unprivileged account the sudo tests run sudo as. The
// tests create it when missing (a system account without a password or a
// login shell) and leave it: creating it again in every run would race
// between test processes.
const SudoUserName = "sysgate-sudo"

// SudoUser is an unprivileged user who may run anything through the real
// sudo without a password while the test runs.
type SudoUser struct {
	Name     string
	UID, GID uint32
	Home     string
}

// CleanupTB is a TB that can register cleanups (testing.T, GinkgoT()).
type CleanupTB interface {
	TB
	Cleanup(func())
}

// RequireSudoUser gives the test a SudoUser: it needs root and the sudo
// program (make test installs it: scripts/deps.sh --test), creates the
// account when missing, and allows it password-less sudo through a
// drop-in of this process's own under /etc/sudoers.d, removed when the
// test ends. Skips (under CI fails) when sudo cannot be had.
func RequireSudoUser(t CleanupTB) SudoUser {
	t.Helper()
	RequireRoot(t)
	if _, err := exec.LookPath("sudo"); err != nil {
		skipOrFail(t, "sudo", "the sudo program is not installed (run: scripts/deps.sh --test, or apt-get install sudo)")
	}
	u, err := ensureSudoAccount()
	if err != nil {
		t.Fatalf("sudo test account: %v", err)
	}
	// One drop-in per test process: parallel test packages each add and
	// remove their own. sudo ignores names with a dot, so none here.
	dropIn := filepath.Join("/etc/sudoers.d", fmt.Sprintf("sysgate-test-%d", os.Getpid()))
	rule := fmt.Sprintf("%s ALL=(root) NOPASSWD: ALL\n", u.Name)
	if err := os.WriteFile(dropIn, []byte(rule), 0o440); err != nil {
		t.Fatalf("sudoers drop-in: %v", err)
	}
	t.Cleanup(func() { _ = os.Remove(dropIn) })
	return u
}

func ensureSudoAccount() (SudoUser, error) {
	u, err := user.Lookup(SudoUserName)
	if err != nil {
		var unknown user.UnknownUserError
		if !errors.As(err, &unknown) {
			return SudoUser{}, err
		}
		out, err := exec.Command("useradd", "--system", "--user-group", "--create-home",
			"--home-dir", "/var/lib/"+SudoUserName, "--shell", "/usr/sbin/nologin", SudoUserName).CombinedOutput()
		// Another test process may have created it in the meantime.
		if u, lerr := user.Lookup(SudoUserName); lerr == nil {
			return toSudoUser(u)
		}
		return SudoUser{}, fmt.Errorf("useradd %s: %v: %s", SudoUserName, err, out)
	}
	return toSudoUser(u)
}

func toSudoUser(u *user.User) (SudoUser, error) {
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return SudoUser{}, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return SudoUser{}, err
	}
	return SudoUser{Name: u.Username, UID: uint32(uid), GID: uint32(gid), Home: u.HomeDir}, nil
}

// Sudo is `sudo -n args...` run by the user, from their home directory,
// with a login-like environment and path as PATH: what a developer typing
// `sudo ...` in their shell does.
func (u SudoUser) Sudo(path string, args ...string) *exec.Cmd {
	cmd := exec.Command("sudo", append([]string{"-n", "--"}, args...)...)
	cmd.Dir = u.Home
	cmd.Env = []string{"PATH=" + path, "HOME=" + u.Home, "USER=" + u.Name, "LOGNAME=" + u.Name, "LANG=C.UTF-8"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: []uint32{}}}
	return cmd
}
