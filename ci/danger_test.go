package ci

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// dangerResult is the MCP spec's failure of issue 46: 24 file lines and a
// few plain syscalls, the ssh key read among locale files, a plain
// destination before the cloud metadata one.
func dangerResult() *verdict.Result {
	file := "baselines/my-mcp-server.yaml"
	var fvs []verdict.FileViolation
	for i := range 23 {
		fvs = append(fvs, verdict.FileViolation{FileTouch: verdict.FileTouch{Op: baseline.FileRead,
			Path: "/usr/share/locale/l" + string(rune('a'+i)) + "/LC_MESSAGES/x.mo", Exe: "/usr/bin/node", PID: 7, Syscall: "openat", Count: 1}, File: file, Line: 9})
		if i == 7 {
			fvs = append(fvs, verdict.FileViolation{FileTouch: verdict.FileTouch{Op: baseline.FileRead, Path: "/root/.ssh/id_rsa",
				Sensitive: "ssh key", Level: "high", Exe: "/usr/bin/node", PID: 7, Syscall: "openat", Count: 1}, File: file, Line: 9})
		}
	}
	return &verdict.Result{Agent: "my-mcp-server", Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64,
		Duration: time.Second, Baselines: []string{file}, FilesObserved: true, NetworkObserved: true,
		Violations:        verdict.Violations{{Arch: scmp.X86_64, Syscall: "getcwd", Number: 79, Count: 1, Exe: "/usr/bin/node", Comm: "node", PID: 7, File: file, Line: 20}},
		FileViolations:    fvs,
		NetworkViolations: networkViolations(file)}
}

// Sensitive and risky findings first, in every renderer.
func TestRenderersPutTheDangerousFirst(t *testing.T) {
	r := dangerResult()
	firstOf := func(what, out string, dangerous, plain string) {
		t.Helper()
		d, p := strings.Index(out, dangerous), strings.Index(out, plain)
		if d < 0 || p < 0 || d > p {
			t.Errorf("%s: %q at %d, %q at %d; want the dangerous one first:\n%s", what, dangerous, d, plain, p, out)
		}
	}
	var text bytes.Buffer
	if err := WriteText(&text, r, Palette{}); err != nil {
		t.Fatal(err)
	}
	firstOf("text", text.String(), "/root/.ssh/id_rsa", "/usr/share/locale/la/")
	firstOf("text", text.String(), "169.254.169.254:80", "127.0.0.2:9")

	rep := FromResults("", r)
	var md bytes.Buffer
	if err := rep.WriteSummary(&md); err != nil {
		t.Fatal(err)
	}
	firstOf("summary", md.String(), "/root/.ssh/id_rsa", "/usr/share/locale/la/")
	firstOf("summary", md.String(), "169.254.169.254:80", "127.0.0.2:9")

	var ann bytes.Buffer
	if err := rep.WriteAnnotations(&ann); err != nil {
		t.Fatal(err)
	}
	firstOf("annotations", ann.String(), "/root/.ssh/id_rsa", "/usr/share/locale/la/")
	firstOf("annotations", ann.String(), "169.254.169.254", "getcwd")
	firstOf("annotations", ann.String(), "/root/.ssh/id_rsa", "getcwd")

	// The Gomega message of gatetest's matchers and mcptest: the key read
	// leads, before the plain syscall the run also made.
	msg := FailureText(r)
	firstOf("failure message", msg, "/root/.ssh/id_rsa", "/usr/share/locale/la/")
	firstOf("failure message", msg, "/root/.ssh/id_rsa", "getcwd")
	firstOf("failure message", msg, "169.254.169.254:80", "127.0.0.2:9")
}
