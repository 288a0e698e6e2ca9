package faults_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// execRace is an agent that races its own exec: one thread execs a path
// buffer while another flips it between a program the baseline lists
// (/usr/bin/true) and one it does not (/usr/bin/curl), so the listener
// may read one and the kernel run the other. It keeps going until curl
// has run RUNS times, so some of those runs win the race.
const execRace = `import ctypes, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
A, B = b"/usr/bin/true", b"/usr/bin/curl"
want, ran = int(sys.argv[1]), 0
for _ in range(5000):
    if ran >= want:
        break
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(w, 1)
        buf = ctypes.create_string_buffer(A, 64)
        def flip():
            while True:
                ctypes.memmove(buf, B, len(B))
                ctypes.memmove(buf, A, len(A))
        threading.Thread(target=flip, daemon=True).start()
        argv = (ctypes.c_char_p * 3)(None, b"--version", None)
        argv[0] = ctypes.cast(buf, ctypes.c_char_p)
        libc.execve(buf, argv, None)
        os._exit(127)
    os.close(w)
    out = os.read(r, 100)
    os.close(r)
    os.waitpid(pid, 0)
    ran += out.startswith(b"curl")
sys.exit(0 if ran >= want else 1)
`

var _ = Describe("an agent racing its exec past the program gate", RequiresAudit, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	It("is caught: curl is named, and a won race reads as the exec that ran another program", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		script := filepath.Join(dir, "race.py")
		Expect(os.WriteFile(script, []byte(execRace), 0o644)).To(Succeed())
		py, err := filepath.EvalSymlinks(testutil.Python(GinkgoT()))
		Expect(err).NotTo(HaveOccurred())
		base := filepath.Join(dir, "race.yaml")
		// The syscalls of the script without its race, of curl and of
		// true; the programs list has everything but curl: only the
		// program gate names the curl runs.
		for _, cmd := range [][]string{{py, script, "0"}, {"/usr/bin/curl", "--version"}, {"/usr/bin/true"}} {
			o := sysgate(ctx, append([]string{"record", "--merge", "--agent", "race", "-o", base, "--"}, cmd...)...)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		}
		data, err := os.ReadFile(base)
		Expect(err).NotTo(HaveOccurred())
		programs := "programs:\n  - " + py + "\n  - " + script + "\n  - /usr/bin/true\n"
		text := string(data)
		if i := strings.Index(text, "programs:"); i >= 0 {
			j := strings.Index(text, "syscalls:")
			text = text[:i] + programs + text[j:]
		} else {
			text = strings.Replace(text, "syscalls:", programs+"syscalls:", 1)
		}
		Expect(os.WriteFile(base, []byte(text), 0o644)).To(Succeed())

		o := sysgate(ctx, "check", "--format", "json", "--agent", "race", "-b", base, "--", py, script, "20")
		Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
		r := o.Result()
		Expect(r.ExitStatus).To(Equal(0), "the race did not run curl 20 times: %s", o)
		Expect(r.ProgramViolations).To(ContainElement(HaveField("Path", "/usr/bin/curl")))
		// 20 curl runs: the race is won in some (each run's flip lands
		// between sysgate's read and the kernel's in about a third of the
		// attempts here), and each won one names both programs.
		Expect(r.ProgramViolations).To(ContainElement(And(
			HaveField("Path", "/usr/bin/curl"),
			HaveField("Mismatch", And(ContainSubstring("the exec named /usr/bin/true"), ContainSubstring("the kernel ran /usr/bin/curl"))),
		)), "%s", o)
		Expect(r.Verdict).To(Equal(verdict.VerdictViolation))
	})
})
