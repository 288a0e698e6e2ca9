package preflight

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sysgate/sysgate/auditlog"
	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
)

// With childEnv set, the test binary runs Run in a new namespace instead
// of the tests.
const childEnv = "SYSGATE_PREFLIGHT_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "preflight" {
		_, err := Run()
		fmt.Printf("namespace=%v\n%v\n", errors.Is(err, auditctl.ErrNamespace), err)
		os.Exit(0)
	}
	os.Exit(auditctltest.RunChecked(m))
}

func TestPreflightPassesHere(t *testing.T) {
	testutil.RequireAudit(t)
	auditctltest.HoldTuning(t) // like a run: no fault-forcing test (ExclusiveKernel) elsewhere meanwhile
	r, err := Run()
	if err != nil {
		t.Fatalf("preflight: %v", err)
	}
	names := map[string]bool{}
	for _, c := range r.Checks {
		names[c.Name] = true
		if !c.OK {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
	for _, want := range []string{"actions_logged", "CAP_AUDIT_READ", "user namespace", "rate limit", "backlog", "run tuning", "audit daemon", "receive buffer", "end to end"} {
		if !names[want] {
			t.Errorf("no %q check in %+v", want, r.Checks)
		}
	}
	if r.Status == nil {
		t.Errorf("no audit status in the report")
	}
}

func TestActionsLoggedWithoutLogIsExplained(t *testing.T) {
	testutil.RequireAudit(t)
	auditctltest.HoldExclusive(t)
	before, err := auditctl.ReadActionsLogged()
	if err != nil {
		t.Fatal(err)
	}
	var without []string
	for _, a := range strings.Fields(before) {
		if a != "log" {
			without = append(without, a)
		}
	}
	if err := auditctltest.SetActionsLogged(strings.Join(without, " ")); err != nil {
		t.Fatal(err)
	}

	r, err := Run()
	if !errors.Is(err, auditctl.ErrActionNotLogged) {
		t.Fatalf("preflight error %v, want ErrActionNotLogged", err)
	}
	var e *auditctl.Error
	if !errors.As(err, &e) || !strings.Contains(e.Fix, "sysctl -w kernel.seccomp.actions_logged=") || !strings.Contains(e.Fix, " log\"") {
		t.Errorf("fix %q does not say how to add log", e.Fix)
	}
	if len(r.Failed()) != 1 {
		t.Errorf("failed checks %+v, want only actions_logged", r.Failed())
	}

	// A barrier cannot pass either, and says why.
	s, err := auditlog.Open(auditlog.Options{BarrierTimeout: 100 * time.Millisecond, BarrierAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Barrier(context.Background())
	if !errors.Is(err, auditctl.ErrActionNotLogged) || !errors.Is(err, auditlog.ErrBarrierTimeout) {
		t.Errorf("barrier error %v, want ErrActionNotLogged and ErrBarrierTimeout", err)
	}
}

// In a container (a new user or network namespace) audit delivers
// nothing; Preflight must say so, matching ErrNamespace.
func TestPreflightInContainerNamespaces(t *testing.T) {
	testutil.RequireAudit(t)
	// The children check actions_logged too: no forced fault meanwhile.
	auditctltest.HoldTuning(t)
	for name, attr := range map[string]*syscall.SysProcAttr{
		"netns":  {Cloneflags: syscall.CLONE_NEWNET},
		"userns": {Cloneflags: syscall.CLONE_NEWUSER, UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}, GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"=preflight")
			cmd.SysProcAttr = attr
			cmd.Stderr = os.Stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v", err)
			}
			t.Logf("%s", out)
			if !strings.HasPrefix(string(out), "namespace=true\n") || !strings.Contains(string(out), "run on the host or a VM runner") {
				t.Errorf("preflight in a new %s said:\n%s", name, out)
			}
		})
	}
}

func TestBootAuditOn(t *testing.T) {
	for cmdline, want := range map[string]bool{
		"console=ttyS0 quiet":      false,
		"ro audit=1 quiet":         true,
		"audit=on":                 true,
		"audit=ON":                 true,
		"audit=0":                  false,
		"audit=1 audit=0":          false, // the last one wins
		"audit=off audit=1":        true,
		"root=/dev/vda -- audit=1": false, // after "--": init's
		"audit_backlog_limit=8192": false,
		"audit=1 audit_backlog_limit=8192 splash\n": true,
	} {
		if got := bootAuditOn(cmdline); got != want {
			t.Errorf("bootAuditOn(%q) = %v, want %v", cmdline, got, want)
		}
	}
}
