package faults_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// violationsOf lists a result's violations as "arch syscall".
func violationsOf(r *verdict.Result) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Arch.String()+" "+v.Syscall)
	}
	return out
}

// expectLearned runs an incremental record of the escape against a copy
// of base (`record --against`): the baseline allowed in the kernel, only
// the rest logged. The escape's syscall must be the one thing the run
// observed and the one thing added to the file, which keeps everything
// else: what a check catches, an incremental record learns.
func expectLearned(ctx context.Context, base, mode string, flags []string, want string) {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	file, result := filepath.Join(dir, "incremental.yaml"), filepath.Join(dir, "result.json")
	data, err := os.ReadFile(base)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(file, data, 0o644)).To(Succeed())
	Expect(os.Chmod(dir, 0o755)).To(Succeed())
	args := append([]string{"record", "--against", file, "--result", result}, flags...)
	o := sysgate(ctx, append(args, "--", bin.Agent, mode, "escape")...)
	Expect(o.Code).To(Equal(cli.ExitOK), "incremental record of %s: %s", mode, o)
	data, err = os.ReadFile(result)
	Expect(err).NotTo(HaveOccurred())
	var r verdict.Result
	Expect(json.Unmarshal(data, &r)).To(Succeed())
	Expect(r.Incremental).To(BeTrue(), "%s", o)
	Expect(r.Observed.Incremental).To(BeTrue())
	var seen []string
	for _, arch := range r.Observed.Arches() {
		for _, name := range r.Observed.Names(arch) {
			seen = append(seen, arch.String()+" "+name)
		}
	}
	Expect(seen).To(ConsistOf(want), "the incremental record logged only what the baseline lacks: %s", o)
	before, err := baseline.LoadStack(base)
	Expect(err).NotTo(HaveOccurred())
	after, err := baseline.LoadStack(file)
	Expect(err).NotTo(HaveOccurred())
	arch, err := scmp.ParseArch(strings.Fields(want)[0])
	Expect(err).NotTo(HaveOccurred())
	name := strings.Fields(want)[1]
	Expect(before.Allows(arch, name)).To(BeFalse())
	Expect(after.Allows(arch, name)).To(BeTrue(), "%s was not added to the file: %s", want, o)
	for _, a := range before.Arches() {
		for _, e := range before.Entries(a) {
			Expect(after.Allows(a, e.Name)).To(BeTrue(), "%s %s was dropped", a, e.Name)
		}
	}
}

var _ = Describe("an agent escaping the gate", RequiresAudit, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	// expectCaught checks `check` of the escape: exit 1, exactly the one
	// escape syscall reported (and named in the text output), a clean
	// agent exit, nothing left running.
	expectCaught := func(ctx context.Context, mode string, flags []string, want string) *verdict.Result {
		GinkgoHelper()
		base := recordBaseline(ctx, mode, flags...)
		o := sysgate(ctx, checkArgs(base, mode, flags)...)
		Expect(o.Code).To(Equal(cli.ExitViolation), "%s", o)
		r := o.Result()
		Expect(r.Verdict).To(Equal(verdict.VerdictViolation))
		Expect(r.Mode).To(Equal(baseline.ModeCheck))
		Expect(violationsOf(r)).To(ConsistOf(want), "%s", o)
		Expect(r.ExitStatus).To(Equal(0), "the agent's escape did not run as meant: %s", o)
		Expect(r.Leaked).To(BeEmpty())
		// The text a user reads names the syscall and the baseline line.
		text := sysgate(ctx, "check", "-b", base, "--", bin.Agent, mode, "escape")
		Expect(text.Code).To(Equal(cli.ExitViolation), "%s", text)
		Expect(text.Stdout).To(ContainSubstring("VIOLATION"))
		Expect(text.Stdout).To(ContainSubstring(strings.Fields(want)[1]))
		expectLearned(ctx, base, mode, flags, want)
		return r
	}

	native := scmp.Native().String()

	It("reports a double-forked setsid daemon's syscall made after the agent exited", func(ctx SpecContext) {
		r := expectCaught(ctx, "daemon", nil, native+" sysinfo")
		// Only the daemon made a logged call, after the root had exited
		// (it waits for EOF on a pipe only the root held).
		Expect(r.Processes).To(HaveLen(1))
		Expect(r.Violations[0].PID).To(Equal(r.Processes[0].PID))
	})

	It("reports a socket opened by a fork-hopping chain long after its first process exited", func(ctx SpecContext) {
		// Each generation forks its successor and exits, for a second:
		// the tree is never empty, but a walk of /proc can find it so.
		r := expectCaught(ctx, "hop", nil, native+" socket(AF_INET)")
		Expect(kernel.SessionMembers(r.Session)).To(BeEmpty(), "sysgate returned while the chain was alive")
	})

	It("kills a fork-hopping chain that outlives the grace period, and returns only once it is gone", func(ctx SpecContext) {
		base := recordBaseline(ctx, "hop")
		o := sysgate(ctx, checkArgs(base, "hop", []string{"--grace", "300ms"}, "5000")...)
		r := o.Result()
		Expect(r.Leaked).NotTo(BeEmpty(), "%s", o)
		Expect(r.Leaked[0].Cause).To(Equal(verdict.CauseOutlived))
		Expect(r.Saw("socket")).To(BeFalse(), "killed before its socket")
		Expect(kernel.SessionMembers(r.Session)).To(BeEmpty(), "sysgate returned while the chain was alive")
	})

	It("reports a syscall made by a thread, not a process", func(ctx SpecContext) {
		expectCaught(ctx, "thread", nil, native+" sysinfo")
	})

	It("reports a syscall of a static binary started with vfork+exec", func(ctx SpecContext) {
		r := expectCaught(ctx, "vfork", nil, native+" sysinfo")
		Expect(r.Violations[0].Comm).To(Equal("exe"), "made by the exec'd /proc/self/exe")
	})

	It("reports an int $0x80 call as an i386 violation instead of letting it through or killing the agent", func(ctx SpecContext) {
		runs, err := testutil.CompatEntryRuns(bin.Agent, "int80", "escape")
		Expect(err).NotTo(HaveOccurred())
		if !runs {
			// No 32-bit entry on this kernel: int $0x80 faults before any
			// syscall runs. Under the gate the agent must die the same
			// way, with nothing let through and nothing logged.
			o := sysgate(ctx, checkArgs(recordBaseline(ctx, "int80"), "int80", nil)...)
			r := o.Result()
			Expect(r.Signal).To(Equal(syscall.SIGSEGV.String()), "%s", o)
			Expect(r.Events).To(BeZero(), "%s", o)
			return
		}
		r := expectCaught(ctx, "int80", nil, "i386 getpid")
		Expect(r.Violations[0].Number).To(Equal(20))
		Expect(r.Signal).To(BeEmpty())
	})

	It("reports a seccomp(2) filter that hides later syscalls as a risky violation", func(ctx SpecContext) {
		// The agent's ERRNO filter outranks the gate's LOG, so its sysinfo
		// never reaches the log: installing the filter is what must fail.
		r := expectCaught(ctx, "seccomp", nil, native+" seccomp")
		Expect(r.Violations[0].Risk.Risky()).To(BeTrue())
		Expect(r.Saw("sysinfo")).To(BeFalse(), "the hidden call cannot be seen; only the hiding can")
	})

	It("keeps an unprivileged agent that rewrites its loginuid in the run (denied)", func(ctx SpecContext) {
		// Exit 0 of the agent means its write got EPERM; its next syscall
		// is still attributed to the run.
		expectCaught(ctx, "loginuid", []string{"--user", "65534:65534"}, native+" sysinfo")
	})

	It("keeps a root agent that rewrites its loginuid in the run (CAP_AUDIT_CONTROL dropped: denied too)", func(ctx SpecContext) {
		expectCaught(ctx, "loginuid", nil, native+" sysinfo")
	})
})
