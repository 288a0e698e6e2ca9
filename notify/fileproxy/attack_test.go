package fileproxy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

// TestFlipAttackNeverOpensTheDeniedFile: a second thread rewrites the
// path buffer between a public file and a secret one while the held
// thread opens it 2000 times. Whatever the buffer said when the kernel
// would have read it, the caller never gets the secret's content while
// decide refuses it, and every refusal is reported as the secret's.
func TestFlipAttackNeverOpensTheDeniedFile(t *testing.T) {
	t.Run("same uid", func(t *testing.T) { flipAttack(t, nil) })
	t.Run("uid 65534", func(t *testing.T) {
		// The notify backend's unprivileged agent under a root
		// supervisor: every open switches the proxy's credentials.
		testutil.RequireRoot(t)
		flipAttack(t, &syscall.Credential{Uid: 65534, Gid: 65534})
	})
}

func flipAttack(t *testing.T, cred *syscall.Credential) {
	dir := worldDir(t)
	files(t, dir, "public", "secret")
	public, secret := filepath.Join(dir, "public"), filepath.Join(dir, "secret")
	const n = 2000
	r := runChild(t, cred, denyPath(secret), fmt.Sprintf("flip:%s:%s:%d", public, secret, n))
	var gotPublic, gotSecret, refused int
	if _, err := fmt.Sscanf(r.lines[0], "ok:%d %d %d", &gotPublic, &gotSecret, &refused); err != nil {
		t.Fatalf("child said %q", r.lines[0])
	}
	t.Logf("%d opens: public %d, secret %d, refused %d", n, gotPublic, gotSecret, refused)
	if gotSecret != 0 {
		t.Errorf("the caller read the refused secret %d times", gotSecret)
	}
	if gotPublic+refused != n {
		t.Errorf("public %d + refused %d != %d opens", gotPublic, refused, n)
	}
	var reportedDenied, reportedPublic int
	for _, a := range r.accesses {
		switch {
		case a.Path == secret && a.Denied:
			reportedDenied++
		case a.Path == public && !a.Denied:
			reportedPublic++
		default:
			t.Errorf("unexpected access %+v", a)
		}
	}
	if reportedDenied != refused || reportedPublic != gotPublic {
		t.Errorf("reported %d refusals and %d public reads, the child saw %d and %d", reportedDenied, reportedPublic, refused, gotPublic)
	}
	// The attack must have been live: both names were opened.
	if refused == 0 || gotPublic == 0 {
		t.Errorf("the flip never changed what was opened (public %d, refused %d): the test proves nothing", gotPublic, refused)
	}
}

// TestCallerCredentials: a supervisor running as root acts with the
// caller's file credentials. A caller of uid 65534 gets EACCES on a
// root-only file, reads a world-readable one, and creates files it
// owns, with the mode its umask leaves.
func TestCallerCredentials(t *testing.T) {
	testutil.RequireRoot(t)
	dir := worldDir(t)
	files(t, dir, "public", "rootonly")
	if err := os.Chmod(filepath.Join(dir, "rootonly"), 0o600); err != nil {
		t.Fatal(err)
	}
	drop := filepath.Join(dir, "drop")
	if err := os.Mkdir(drop, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(drop, 0o777); err != nil {
		t.Fatal(err)
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	r := runChild(t, nobody, allowAll,
		"cat:"+dir+"/rootonly", "cat:"+dir+"/public",
		"reopenw:"+dir+"/public:/proc/self/fd/%d",
		"umask:027", "create:"+drop+"/made:666",
		"create:"+dir+"/notmine:666")
	want := []string{"err:EACCES", "ok:public", "err:EACCES", "ok:", "ok:", "err:EACCES"}
	if strings.Join(r.lines, " ") != strings.Join(want, " ") {
		t.Fatalf("got %q, want %q", r.lines, want)
	}
	st, err := os.Stat(filepath.Join(drop, "made"))
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 65534 || sys.Gid != 65534 || st.Mode().Perm() != 0o640 {
		t.Errorf("created %v uid %d gid %d, want -rw-r----- 65534:65534", st.Mode(), sys.Uid, sys.Gid)
	}
}
