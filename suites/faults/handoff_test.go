package faults_test

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// handoffAddress is where an earlier launcher's one unheard syscall
// instruction ended (the symbol sysgate_handoff_ret of a binary that is
// not position-independent). A binary without it has no such
// instruction: the attack then replays an arbitrary address, which must
// make no difference either.
func handoffAddress(binary string) uint64 {
	GinkgoHelper()
	f, err := elf.Open(binary)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		Expect(err).NotTo(HaveOccurred())
	}
	for _, s := range syms {
		if s.Name == "sysgate_handoff_ret" && f.Type == elf.ET_EXEC {
			return s.Value
		}
	}
	return 0x10000a00
}

// listenerSend matches strace's line for the launcher's sendmsg of a
// listener: a status record of kind 5 (StatusListener) with a descriptor
// attached.
var listenerSend = regexp.MustCompile(`sendmsg\((\d+), \{[^}]*iov_base="\\5\\0\\0\\0.*SCM_RIGHTS`)

// statusDescriptor learns, the way an attacker would in a dry run, which
// descriptor number the launcher's status socket has in the agent's first
// process: strace -f of sysgate running the benign agent shows the
// listener's sendmsg on it.
func statusDescriptor(ctx context.Context, args []string) int {
	GinkgoHelper()
	out := filepath.Join(GinkgoT().TempDir(), "strace.txt")
	cmd := exec.CommandContext(ctx, "strace", append([]string{"-f", "-qq", "-e", "trace=sendmsg", "-o", out, bin.Sysgate}, args...)...)
	output, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "strace -f sysgate %v: %s", args, output)
	data, err := os.ReadFile(out)
	Expect(err).NotTo(HaveOccurred())
	m := listenerSend.FindSubmatch(data)
	Expect(m).NotTo(BeNil(), "no listener handoff in strace's output:\n%s", data)
	fd, err := strconv.Atoi(string(m[1]))
	Expect(err).NotTo(HaveOccurred())
	return fd
}

// The third red team's first hole: the launcher's handoff rule (write and
// sendmsg on the status descriptor from one instruction address) stayed
// in the agent's filter after its execve, and both its conditions are
// things the agent can reproduce: it maps that address, places "syscall;
// ret" there, dup2s a socket onto the descriptor number and sends.
var _ = Describe("an agent replaying the launcher's listener handoff after its exec", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() {
		requireAudit()
	})

	for _, backend := range []verdict.Backend{verdict.BackendAudit, verdict.BackendNotify} {
		It(fmt.Sprintf("is caught by check and refused by enforce (%s)", backend), func(ctx SpecContext) {
			addr := strconv.FormatUint(handoffAddress(bin.Sysgate), 16)
			base := filepath.Join(GinkgoT().TempDir(), "replay.yaml")
			// Programs are gated (the record writes them), so under audit too
			// the filter carries a listener and, before the fix, the rule.
			o := sysgate(ctx, "record", "--backend", string(backend), "-o", base, "--", bin.Replay, "benign", addr, "9")
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			Expect(os.Chmod(filepath.Dir(base), 0o755)).To(Succeed())

			check := []string{"check", "--backend", string(backend), "--format", "json", "-b", base, "--"}
			fd := strconv.Itoa(statusDescriptor(ctx, append(check, bin.Replay, "benign", addr, "9")))

			o = sysgate(ctx, append(check, bin.Replay, "escape", addr, fd)...)
			Expect(o.Code).To(Equal(cli.ExitViolation), "the replayed handoff went unseen: %s", o)
			r := o.Result()
			Expect(r.ExitStatus).To(Equal(0), "the replay did not run as meant: %s", o)
			Expect(violationsOf(r)).To(ConsistOf(scmp.Native().String()+" sendmsg"), "%s", o)

			o = sysgate(ctx, "enforce", "--backend", string(backend), "--format", "json", "-b", base, "--", bin.Replay, "escape", addr, fd)
			Expect(o.Code).To(Equal(cli.ExitViolation), "enforce let the replayed handoff through: %s", o)
			Expect(o.Result().ExitStatus).To(Equal(3), "the agent's sendmsg was not refused: %s", o)
		})
	}
})
