package kernel

import (
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// A filter loaded on one thread refuses getppid there (ERRNO, so no audit
// record) and nowhere else; the thread ends with its goroutine.
func TestLoadSeccompFilterOnOneThread(t *testing.T) {
	const nrOffset = 0 // struct seccomp_data.nr
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: nrOffset},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: GetppidNr, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	if err := LoadSeccompFilter(nil, 0); !errors.Is(err, unix.EINVAL) {
		t.Errorf("empty program: %v, want EINVAL", err)
	}
	got := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		if err := SetNoNewPrivs(); err != nil {
			got <- err
			return
		}
		if err := LoadSeccompFilter(prog, 0); err != nil {
			got <- err
			return
		}
		got <- Getppid(0)
	}()
	if err := <-got; !errors.Is(err, unix.EPERM) {
		t.Fatalf("getppid under the filter: %v, want EPERM", err)
	}
	if err := Getppid(0); err != nil {
		t.Errorf("getppid on another thread: %v; the filter leaked", err)
	}
}

func TestThreadName(t *testing.T) {
	got := make(chan string, 1)
	var rename func()
	rename = func() {
		runtime.LockOSThread() // never unlocked: the renamed thread exits with us
		if OnMainThread() {
			// Renaming the main thread would rename the process: keep
			// this thread busy, so the next goroutine runs on another.
			done := make(chan struct{})
			go func() { rename(); close(done) }()
			<-done
			runtime.UnlockOSThread()
			return
		}
		if err := SetThreadName("sysgate-test-name-too-long"); err != nil {
			got <- err.Error()
			return
		}
		st, err := ReadStat(unix.Gettid())
		if err != nil {
			got <- err.Error()
			return
		}
		got <- st.Comm
	}
	go rename()
	// /proc/<tid>/stat answers for a thread too.
	if name := <-got; name != "sysgate-test-na" {
		t.Errorf("thread name %q, want the first 15 bytes", name)
	}
}

func TestSetEffectiveCapability(t *testing.T) {
	testutil.RequireRoot(t)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the changed thread dies
		if err := SetEffectiveCapability(CapAuditControl, false); err != nil {
			done <- err
			return
		}
		if has, _ := HasCapability(CapAuditControl); has {
			done <- errors.New("still effective after lowering")
			return
		}
		if err := SetEffectiveCapability(CapAuditControl, true); err != nil {
			done <- err
			return
		}
		if has, _ := HasCapability(CapAuditControl); !has {
			done <- errors.New("not effective after raising again")
			return
		}
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The tests here change their own OS thread (a filter, a name, a
// listener) and end it by returning while locked. Go never ends the main
// thread that way (it parks it), so a change made there would outlive its
// test: locking the main goroutine to the main thread keeps every other
// goroutine off it.
func init() { runtime.LockOSThread() }
