package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/testutil"
	"golang.org/x/sys/unix"
)

// Runs claim and reap sessions concurrently (parallel Ginkgo workers, go
// test packages): a reaper must never see a claim half-written.
func TestClaimsAndReapsRaceFree(t *testing.T) {
	testutil.RequireRoot(t)
	const workers, rounds = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*2)
	warnings := make(chan []string, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				// Session ids far above any the kernel hands out here.
				release, err := ClaimSession(uint32(4_000_000_000+w*rounds+i), 0, 1<<unix.CAP_AUDIT_CONTROL, 0)
				if err != nil {
					errs <- err
					continue
				}
				if w := ReapAbandonedRuns(); len(w) > 0 {
					warnings <- w
				}
				release()
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(warnings)
	for err := range errs {
		t.Error(err)
	}
	for w := range warnings {
		t.Error(w)
	}
}

func TestParseClaim(t *testing.T) {
	want := claim{ses: 7, owner: sessionOwner{12, 34}, rootStart: 56, filters: 2, fence: 1 << unix.CAP_AUDIT_CONTROL, loginUID: 1000}
	got, ownerOK, err := parseClaim(7, want.String())
	if err != nil || !ownerOK || got != want {
		t.Errorf("round trip: %+v, %v, %v; want %+v", got, ownerOK, err, want)
	}
	if err := got.verifiable(); err != nil {
		t.Errorf("a run's own claim: %v", err)
	}
	// The format before version 2: the owner is read, the rest refused.
	if c, ownerOK, err := parseClaim(7, "12 34\n"); err == nil || !ownerOK || c.owner != want.owner {
		t.Errorf("old format: %+v, %v, %v", c, ownerOK, err)
	}
	for _, bad := range []string{"", "x 1 v2 0 1 1 0", "12 34 v1 0 1 1 0", "12 34 v2 0 1 1", "12 34 v2 0 1 1 -1"} {
		if _, _, err := parseClaim(7, bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	for _, c := range []claim{
		{ses: unsetSession, filters: 1, fence: want.fence},
		{ses: 7, filters: 1},
		{ses: 7, fence: want.fence},
	} {
		if c.verifiable() == nil {
			t.Errorf("%+v is verifiable", c)
		}
	}
}

// startInSession starts a process outside any run whose loginuid is
// loginUID: "0" gives it a fresh audit session, "4294967295" the unset
// session every daemon has.
func startInSession(t *testing.T, loginUID string) (*exec.Cmd, uint32) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "echo "+loginUID+" > /proc/self/loginuid && exec sleep 600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		if st, err := kernel.ReadStat(cmd.Process.Pid); err == nil && st.Comm == "sleep" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the victim never exec'd sleep")
		}
		time.Sleep(time.Millisecond) // polling for a state change, not standing in for one
	}
	ses, err := kernel.ReadSession(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, ses
}

// A root agent can write the claims directory. A claim it plants, in any
// format, for a session that no run of sysgate owns (the unset session
// included) kills nothing, and the run says so. The claims go to a
// directory of the test's own: today's sysgate (another build on this
// machine) reading a claim on the unset session would kill every daemon.
func TestPlantedClaimsKillNothing(t *testing.T) {
	testutil.RequireRoot(t)
	saved := claimsDir
	claimsDir = t.TempDir()
	t.Cleanup(func() { claimsDir = saved })

	for _, session := range []struct{ name, loginUID string }{{"fresh session", "0"}, {"unset session", "4294967295"}} {
		victim, ses := startInSession(t, session.loginUID)
		for _, planted := range []struct{ name, text string }{
			{"old format, dead owner", "999999999 1\n"},
			{"forged v2, dead owner", claim{ses: ses, owner: sessionOwner{999999999, 1}, filters: 1, fence: 1 << unix.CAP_AUDIT_CONTROL, loginUID: 0}.String()},
			{"forged v2, no fence", "999999999 1 v2 0 0 0 0\n"},
			{"garbage", "rm -rf /\n"},
		} {
			t.Run(session.name+"/"+planted.name, func(t *testing.T) {
				path := filepath.Join(claimsDir, strconv.FormatUint(uint64(ses), 10))
				if err := os.WriteFile(path, []byte(planted.text), 0o644); err != nil {
					t.Fatal(err)
				}
				warnings := ReapAbandonedRuns()
				if st, err := kernel.ReadStat(victim.Process.Pid); err != nil || st.State == 'Z' {
					t.Fatalf("the planted claim killed pid %d of audit session %d (warnings %q)", victim.Process.Pid, ses, warnings)
				}
				if !strings.Contains(strings.Join(warnings, "\n"), "audit session "+strconv.FormatUint(uint64(ses), 10)) {
					t.Errorf("nothing reported: %q", warnings)
				}
				if _, err := os.Stat(path); err == nil {
					t.Errorf("the claim is still there after being reported")
				}
			})
		}
	}
}
