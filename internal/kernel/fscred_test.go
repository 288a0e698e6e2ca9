package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// TestSetThreadFSCred: a root thread that takes uid 65534's file
// credentials loses root's file access (and only that thread does),
// and gets it back with its own.
func TestSetThreadFSCred(t *testing.T) {
	testutil.RequireRoot(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct{ asNobody, asRoot, other error }
	done := make(chan result)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with its changed state
		var r result
		own, err := ThreadFSCred()
		if err != nil {
			r.asNobody = err
			done <- r
			return
		}
		if err := SetThreadFSCred(FSCred{UID: 65534, GID: 65534}); err != nil {
			r.asNobody = err
			done <- r
			return
		}
		_, r.asNobody = unix.Open(secret, unix.O_RDONLY, 0)
		// Another goroutine, on another thread, keeps root's access.
		other := make(chan error)
		go func() { _, err := os.ReadFile(secret); other <- err }()
		r.other = <-other
		if err := SetThreadFSCred(own); err != nil {
			r.asRoot = err
		} else {
			fd, err := unix.Open(secret, unix.O_RDONLY, 0)
			r.asRoot = err
			unix.Close(fd)
		}
		done <- r
	}()
	r := <-done
	if !errors.Is(r.asNobody, unix.EACCES) {
		t.Errorf("as 65534: %v, want EACCES", r.asNobody)
	}
	if r.other != nil {
		t.Errorf("another thread lost access: %v", r.other)
	}
	if r.asRoot != nil {
		t.Errorf("back as root: %v", r.asRoot)
	}
}

func TestParseTaskCred(t *testing.T) {
	status := "Name:\tx\nUmask:\t0022\nUid:\t1\t2\t3\t4\nGid:\t5\t6\t7\t8\nGroups:\t9 10 \nCapEff:\t0000000000000400\n"
	c, err := ParseTaskCred([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	if c.UID != [4]uint32{1, 2, 3, 4} || c.GID != [4]uint32{5, 6, 7, 8} || len(c.Groups) != 2 || c.Groups[1] != 10 || c.CapEff != 0x400 || c.Umask != 0o22 {
		t.Errorf("parsed %+v", c)
	}
	if _, err := ParseTaskCred([]byte("Uid:\t1\t2\t3\t4\n")); err == nil {
		t.Error("a status without Gid, Groups, Umask, CapEff parsed")
	}
}
