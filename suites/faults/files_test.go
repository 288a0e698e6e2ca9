package faults_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// Issue 35: an agent whose baseline holds openat(read) and
// openat(create), because it reads and writes its workspace, touches a
// file outside it with the same calls (testdata/filetouch.c). Without a
// files baseline every one of these runs was CLEAN. Each spec records
// the mode against a file inside the workspace, then checks it against
// one outside, as root on the audit backend and as nobody on notify.

// fileScene is one agent's world: its workspace (the run's directory,
// {workspace}), a home with an SSH key and a .bashrc ({home}), and the
// baseline, in a directory only root writes.
type fileScene struct {
	work, home, key, bashrc, base string
	nobody                        bool
}

func newFileScene(nobody bool) fileScene {
	GinkgoHelper()
	top := filepath.Dir(workDir())
	s := fileScene{work: filepath.Join(top, "work"), home: filepath.Join(top, "home"), base: filepath.Join(top, "files.yaml"), nobody: nobody}
	Expect(os.MkdirAll(filepath.Join(s.home, ".ssh"), 0o755)).To(Succeed())
	s.key = filepath.Join(s.home, ".ssh", "id_rsa")
	s.bashrc = filepath.Join(s.home, ".bashrc")
	Expect(os.WriteFile(s.key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o644)).To(Succeed())
	Expect(os.WriteFile(s.bashrc, []byte("# bashrc\n"), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(s.work, "input.txt"), []byte("workspace input\n"), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(s.work, "inside.txt"), []byte("workspace file\n"), 0o644)).To(Succeed())
	if nobody {
		// sysgate itself runs as nobody: it writes the baseline too.
		dir := filepath.Join(top, "base")
		Expect(os.Mkdir(dir, 0o755)).To(Succeed())
		Expect(os.Chown(dir, 65534, 65534)).To(Succeed())
		s.base = filepath.Join(dir, "files.yaml")
		for _, p := range []string{s.work, s.home, filepath.Join(s.home, ".ssh"), s.bashrc, filepath.Join(s.work, "input.txt"), filepath.Join(s.work, "inside.txt")} {
			Expect(os.Chown(p, 65534, 65534)).To(Succeed())
		}
	}
	return s
}

// run is sysgate VERB with the scene's directory and home, as nobody
// when the scene says so.
func (s fileScene) run(ctx context.Context, args ...string) outcome {
	GinkgoHelper()
	return sysgateWith(ctx, func(cmd *exec.Cmd) {
		cmd.Dir = s.work
		cmd.Env = append(os.Environ(), "HOME="+s.home)
		if s.nobody {
			asNobody(cmd)
		}
	}, args...)
}

func (s fileScene) flags(backend string) []string {
	if s.nobody {
		return []string{"--backend", backend}
	}
	return []string{"--backend", backend, "--user", "root"}
}

var _ = Describe("an agent that touches a file outside its files baseline", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() { requireAudit() })

	DescribeTable("fails the gate with only the file named",
		func(ctx SpecContext, backend string, nobody bool, mode, op string, outside func(fileScene) string) {
			s := newFileScene(nobody)
			inside := filepath.Join(s.work, "inside.txt")
			rec := append([]string{"record", "--agent", "filetouch", "-o", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(rec, "--", bin.FileTouch, mode, inside)...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			data, err := os.ReadFile(s.base)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(ContainSubstring("{workspace}/**"), "record writes the workspace as a placeholder")
			Expect(string(data)).NotTo(ContainSubstring(s.home), "nothing of the home was touched in the benign run")

			target := outside(s)
			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = s.run(ctx, append(chk, "--", bin.FileTouch, mode, target)...)
			r := o.Result()
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s: the file is outside the baseline: %s", mode, o)
			Expect(r.Violations).To(BeEmpty(), "only the file is new: %s", o)
			Expect(r.ProgramViolations).To(BeEmpty(), "only the file is new: %s", o)
			want, ok := baseline.ParseFileOp(op)
			Expect(ok).To(BeTrue(), "op %q", op)
			Expect(r.FileViolations).To(ContainElement(And(HaveField("Path", target), HaveField("Op", want))), "%s", o)
		},
		func(backend string, nobody bool, mode, op string, _ func(fileScene) string) string {
			who := "root"
			if nobody {
				who = "nobody"
			}
			return backend + " as " + who + ": " + mode + " (" + op + ")"
		},
		fileAttacks("audit", false),
		fileAttacks("notify", true),
	)

	DescribeTable("a path flipped by a second thread is never clean when the key was opened",
		func(ctx SpecContext, backend string, nobody bool) {
			s := newFileScene(nobody)
			rec := append([]string{"record", "--agent", "filetouch", "-o", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(rec, "--", bin.FileTouch, "flip", filepath.Join(s.work, "inside.txt"))...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = s.run(ctx, append(chk, "--", bin.FileTouch, "flip", s.key)...)
			// The agent prints how often it read the key (with --format
			// json, sysgate passes the agent's output on to stderr).
			var hits int
			at := strings.Index(o.Output(), "opened-target ")
			Expect(at).To(BeNumerically(">=", 0), "the agent's count: %s", o)
			_, err := fmt.Sscanf(o.Output()[at:], "opened-target %d", &hits)
			Expect(err).NotTo(HaveOccurred(), "the agent's count: %s", o)
			Expect(hits).To(BeNumerically(">", 0), "2000 flips never reached the key: the spec proves nothing: %s", o)
			Expect(o.Code).NotTo(Equal(cli.ExitOK), "the key was opened %d times and the run was clean: %s", hits, o)
			if o.Code == cli.ExitViolation {
				r := o.Result()
				// Every read of the key counted: the flips that reached it
				// and the agent's one read of it to tell it apart.
				Expect(r.FileViolations).To(ContainElement(And(HaveField("Path", s.key), HaveField("Count", BeNumerically("==", hits+1)))), "%s", o)
			}
		},
		Entry("audit as root", "audit", false),
		Entry("notify as nobody", "notify", true),
	)
})

var _ = Describe("an agent that reopens a key through a descriptor whose name it re-pointed", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() { requireAudit() })

	// The O_PATH open's name (./link) leads to ./input.txt by the time
	// the observer looks, and the reopen's descriptor holds input.txt: a
	// name the observer could not verify must never become the key's
	// path (it did: a clean run that read the key).
	DescribeTable("is never clean",
		func(ctx SpecContext, backend string, nobody bool) {
			s := newFileScene(nobody)
			rec := append([]string{"record", "--agent", "filetouch", "-o", s.base}, s.flags(backend)...)
			o := s.run(ctx, append(rec, "--", bin.FileTouch, "opathswap", filepath.Join(s.work, "inside.txt"))...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)
			chk := append([]string{"check", "--format", "json", "-b", s.base}, s.flags(backend)...)
			o = s.run(ctx, append(chk, "--", bin.FileTouch, "opathswap", s.key)...)
			Expect(o.Code).NotTo(Equal(cli.ExitOK), "the key was read: %s", o)
			if o.Code == cli.ExitViolation {
				Expect(o.Result().FileViolations).To(ContainElement(And(HaveField("Path", s.key), HaveField("Op", baseline.FileRead))), "%s", o)
			}
		},
		Entry("audit as root", "audit", false),
		Entry("notify as nobody", "notify", true),
	)
})

// fileAttacks are the attacks on one backend.
func fileAttacks(backend string, nobody bool) []TableEntry {
	key := func(s fileScene) string { return s.key }
	bashrc := func(s fileScene) string { return s.bashrc }
	entries := []TableEntry{
		Entry(nil, backend, nobody, "read", "read", key),
		Entry(nil, backend, nobody, "write", "write", func(s fileScene) string { return filepath.Join(s.home, "dropped") }),
		Entry(nil, backend, nobody, "symlink", "write", bashrc),
		Entry(nil, backend, nobody, "rename", "write", bashrc),
		Entry(nil, backend, nobody, "opath", "write", bashrc),
	}
	if !nobody {
		// Linking another user's file is refused by protected_hardlinks,
		// and open_by_handle_at needs CAP_DAC_READ_SEARCH: root only.
		entries = append(entries,
			Entry(nil, backend, nobody, "hardlink", "read", key),
			Entry(nil, backend, nobody, "handle", "read", key))
	}
	return entries
}
