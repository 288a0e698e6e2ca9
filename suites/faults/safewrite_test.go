package faults_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// An agent that runs as another user than sysgate plants symlinks where
// sysgate writes after the run.
var _ = Describe("an agent planting links at sysgate's outputs", RequiresAudit, Escape, Inherit, func() {
	BeforeEach(func() {
		requireAudit()
	})

	var dir, target string
	const targetText = "root's file\n"

	BeforeEach(func() {
		// A directory the agent (nobody) can write, and a root-owned
		// file outside it that a planted symlink points at.
		dir = filepath.Join(GinkgoT().TempDir(), "out")
		Expect(os.Mkdir(dir, 0o755)).To(Succeed())
		Expect(os.Chown(dir, 65534, 65534)).To(Succeed())
		Expect(os.Chmod(filepath.Dir(dir), 0o755)).To(Succeed())
		target = filepath.Join(GinkgoT().TempDir(), "root-owned")
		Expect(os.WriteFile(target, []byte(targetText), 0o644)).To(Succeed())
	})

	// plant is an agent script, run as nobody, that plants symlinks to
	// the root-owned file at each of names in dir.
	plant := func(names ...string) string {
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "ln -s %s %s/%s; ", target, dir, n)
		}
		return b.String() + "true"
	}

	It("refuses, with exit 2 and before the run, an output in a directory the agent's user can write", func(ctx SpecContext) {
		base := filepath.Join(dir, "base.yaml")
		o := sysgate(ctx, "record", "--user", "65534:65534", "-o", base, "--", "/bin/sh", "-c", plant("base.yaml"))
		Expect(o.Code).To(Equal(cli.ExitUsage), "an agent-writable output directory was accepted: %s", o)
		Expect(o.Stderr).To(ContainSubstring(base), "%s", o)
		Expect(o.Stderr).To(ContainSubstring("--force"), "the message names no fix: %s", o)
		Expect(os.ReadFile(target)).To(Equal([]byte(targetText)))
		_, err := os.Lstat(base)
		Expect(err).To(MatchError(os.ErrNotExist), "the agent ran although the output was refused")
	})

	It("with --force, neither writes nor reads through symlinks the agent planted at its outputs during the run", func(ctx SpecContext) {
		base := filepath.Join(dir, "base.yaml")
		obs := filepath.Join(dir, "obs.json")
		lockTarget := filepath.Join(filepath.Dir(target), "created-through-lock")
		script := plant("base.yaml", "obs.json") + fmt.Sprintf("; ln -s %s %s.lock", lockTarget, obs)
		o := sysgate(ctx, "record", "--force", "--user", "65534:65534", "-o", base, "--observation", obs, "--merge",
			"--", "/bin/sh", "-c", script)
		Expect(o.Code).To(Equal(cli.ExitUsage), "%s", o)
		Expect(o.Stderr).To(ContainSubstring("symbolic link"), "%s", o)
		Expect(os.ReadFile(target)).To(Equal([]byte(targetText)), "sysgate wrote through the agent's symlink")
		_, err := os.Lstat(lockTarget)
		Expect(err).To(MatchError(os.ErrNotExist), "sysgate created a file through the agent's symlink")
	})

	It("with --force, writes into a directory the agent's user can write", func(ctx SpecContext) {
		base := filepath.Join(dir, "base.yaml")
		o := sysgate(ctx, "record", "--force", "--user", "65534:65534", "-o", base, "--", "/bin/true")
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		info, err := os.Lstat(base)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().IsRegular()).To(BeTrue())
	})
})
