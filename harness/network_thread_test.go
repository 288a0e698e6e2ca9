package harness

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// A connect made by a thread other than the process's first is a
// connect like any other: the notify proxy held it by the thread's id,
// which pidfd_open refuses without PIDFD_THREAD, and refused the call
// with EACCES as if its caller were gone (the Go agent's loopback fetch
// failed so in an unprivileged make security-test, whenever the Go
// scheduler dialled from another thread). On both backends.
func TestConnectFromASecondThread(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	py := testutil.Python(t)
	agent := func(out *bytes.Buffer) Agent {
		return Agent{Name: "threaded", Command: []string{py, "-I", "-c", threadConnectScript, ln.Addr().String()}, Stdout: out}
	}
	var recorded bytes.Buffer
	r := mustRun(t, agent(&recorded))
	if r.Verdict != verdict.VerdictClean || !strings.Contains(recorded.String(), "connected from a second thread") {
		t.Fatalf("record: %s\n%s", summary(r), recorded.String())
	}
	path := netBaseline(t, r.Observed, true)
	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		var out bytes.Buffer
		r := mustRun(t, agent(&out), WithBaselines(path), WithMode(baseline.ModeCheck), WithBackend(backend))
		if r.Verdict != verdict.VerdictClean || !strings.Contains(out.String(), "connected from a second thread") {
			t.Errorf("%s: %s, want clean and connected\n%s\n%s", backend, r.Verdict, out.String(), summary(r))
		}
	}
}

// threadConnectScript connects to argv[1] from a new thread, and says
// whether it could.
const threadConnectScript = `import socket, sys, threading
host, port = sys.argv[1].rsplit(":", 1)
def dial():
    s = socket.create_connection((host, int(port)))
    s.close()
    print("connected from a second thread", threading.get_native_id() != threading.main_thread().native_id)
t = threading.Thread(target=dial)
t.start()
t.join()
`
