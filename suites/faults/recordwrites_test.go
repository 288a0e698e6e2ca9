package faults_test

import (
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/suites/internal/labels"
)

// Issue 43, items 9-11: what record writes by itself must not open holes.
// Each spec records the harmless run, checks what record wrote, then
// checks the attack, which uses only the calls, classes and programs the
// harmless run made: before the fix every one of them was CLEAN.

var _ = Describe("what record writes by itself", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() { requireAudit() })

	// Item 9: one read of a file under /tmp became {tmp}/**, and /tmp is
	// shared with everything else on the machine.
	DescribeTable("the agent's own temporary directory allows no other directory in /tmp",
		func(ctx SpecContext, backend string, nobody bool) {
			s := newFileScene(nobody)
			// The run's $TMPDIR: the scene's own, so what the agent leaves
			// there goes with the scene.
			tmp := filepath.Join(filepath.Dir(s.work), "tmp")
			Expect(os.Mkdir(tmp, 0o777)).To(Succeed())
			Expect(os.Chmod(tmp, 0o1777)).To(Succeed())
			run := func(args ...string) outcome {
				GinkgoHelper()
				return sysgateWith(ctx, func(cmd *exec.Cmd) {
					cmd.Dir = s.work
					cmd.Env = append(os.Environ(), "HOME="+s.home, "TMPDIR="+tmp)
					if s.nobody {
						asNobody(cmd)
					}
				}, args...)
			}
			rec := append([]string{"record", "--agent", "filetouch", "-o", s.base}, s.flags(backend)...)
			o := run(append(rec, "--", bin.FileTouch, "tmp", filepath.Join(s.work, "inside.txt"))...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)

			// A key another process left in a directory of its own under
			// the same {tmp}.
			plant := filepath.Join(tmp, "plant")
			Expect(os.Mkdir(plant, 0o755)).To(Succeed())
			secret := filepath.Join(plant, "secret.txt")
			Expect(os.WriteFile(secret, []byte("a token another tool left\n"), 0o644)).To(Succeed())

			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = run(append(chk, "--", bin.FileTouch, "tmp", secret)...)
			Expect(o.Code).To(Equal(cli.ExitViolation), "the planted key is outside what the run made: %s", o)
			r := o.Result()
			Expect(r.Violations).To(BeEmpty(), "only the file is new: %s", o)
			Expect(r.ProgramViolations).To(BeEmpty(), "only the file is new: %s", o)
			Expect(r.FileViolations).To(HaveExactElements(And(HaveField("Path", secret), HaveField("Op", baseline.FileRead))), "%s", o)

			data, err := os.ReadFile(s.base)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(ContainSubstring(`"{tmp}/filetouch.??????/**"`), "record writes the agent's mkdtemp directory by its shape")
			Expect(string(data)).NotTo(ContainSubstring(`"{tmp}/**"`), "record never writes the shared directory's tree")
		},
		Entry("audit as root", "audit", false),
		Entry("notify as nobody", "notify", true),
	)

	// Item 10: the sensitive table matched credentials under {home} only,
	// so a key left in the workspace was reached by the {workspace}/**
	// record wrote from one harmless read.
	DescribeTable("a glob record wrote over the workspace does not reach a credential left in it",
		func(ctx SpecContext, backend string, nobody bool, name, label string) {
			s := newFileScene(nobody)
			rec := append([]string{"record", "--agent", "filetouch", "-o", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(rec, "--", bin.FileTouch, "read", filepath.Join(s.work, "inside.txt"))...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			recorded := o

			key := filepath.Join(s.work, name)
			Expect(os.MkdirAll(filepath.Dir(key), 0o755)).To(Succeed())
			Expect(os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o644)).To(Succeed())

			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = s.run(ctx, append(chk, "--", bin.FileTouch, "read", key)...)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s is a credential wherever it lies: %s", name, o)
			r := o.Result()
			Expect(r.Violations).To(BeEmpty(), "only the file is new: %s", o)
			Expect(r.ProgramViolations).To(BeEmpty(), "only the file is new: %s", o)
			Expect(r.FileViolations).To(HaveExactElements(And(HaveField("Path", key), HaveField("Op", baseline.FileRead), HaveField("Sensitive", label),
				HaveField("Has", ContainSubstring("reaches a sensitive path only with a reviewed reason")))), "%s", o)

			Expect(recorded.Output()).To(ContainSubstring("files read {workspace}/** covers sensitive paths:"), "record says what its glob covers")
			v := sysgate(ctx, "baseline", "validate", s.base)
			Expect(v.Output()).To(ContainSubstring("{workspace}/**: read covers sensitive paths:"), "validate warns: %s", v)
		},
		Entry("audit as root: an ssh key", "audit", false, "deploy/id_rsa", "ssh key"),
		Entry("audit as root: cloud credentials", "audit", false, ".aws/credentials", "cloud credentials"),
		Entry("notify as nobody: an ssh key", "notify", true, "deploy/id_rsa", "ssh key"),
		Entry("notify as nobody: cloud credentials", "notify", true, ".aws/credentials", "cloud credentials"),
	)

	// Item 11: an agent that called one local service (its model API)
	// got 127.0.0.1:{port}, which allowed every other service on
	// loopback: a resolver, a proxy, a database.
	DescribeTable("a loopback service the agent called allows no other one", labels.Network,
		func(ctx SpecContext, backend string, nobody bool) {
			s := newFileScene(nobody)
			model := serveStream("tcp", "127.0.0.1:0")
			other := serveStream("tcp", "127.0.0.1:0")
			// Three recordings, as an agent's baseline grows.
			for i := 0; i < 3; i++ {
				rec := append([]string{"record", "--agent", "netconnect", "-o", s.base}, s.flags(backend)...)
				if i > 0 {
					rec = append(rec, "--merge")
				}
				o := s.run(ctx, append(rec, "--", bin.NetConnect, "connect", model.dest())...)
				Expect(o.Code).To(Equal(cli.ExitOK), "record %d: %s", i+1, o)
			}
			Eventually(model.count).Should(Equal(3), "each recording called the model API once")
			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(chk, "--", bin.NetConnect, "connect", other.dest())...)
			Eventually(other.count).Should(BeNumerically(">=", 1), "the attack never reached %s: the spec proves nothing: %s", other.dest(), o)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s is another service: %s", other.dest(), o)
			r := o.Result()
			Expect(r.Violations).To(BeEmpty(), "only the destination is new: %s", o)
			Expect(r.FileViolations).To(BeEmpty(), "only the destination is new: %s", o)
			Expect(r.NetworkViolations).To(HaveExactElements(And(HaveField("Op", baseline.NetConnect), HaveField("Dest", other.dest()),
				HaveField("Has", ContainSubstring(model.dest())))), "%s", o)

			data, err := os.ReadFile(s.base)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(ContainSubstring("- "+model.dest()+"\n"), "a port the run did not bind stays literal")
			Expect(string(data)).NotTo(ContainSubstring("{port}"), "the run bound no port")
		},
		Entry("audit as root", "audit", false),
		Entry("notify as nobody", "notify", true),
	)
})
