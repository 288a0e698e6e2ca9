package faults_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/testutil"
)

// Issue 43, item 15: record pinned the agent's own agent.py by hash, so
// every edit of the agent failed the gate ("MISMATCH ... the pin is the
// gate"), while the same code moved into a module it imports was not
// pinned at all; re-recording said "0 added, 0 removed" although the pin
// changed. The workspace's programs (the repository's own) are now named
// by path and held to their content at the run's start: an edit between
// runs passes, a program the agent rewrites during the run and then runs
// is caught (check) or refused (enforce). testdata/held_agent.py.
var _ = Describe("the workspace's own programs", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() { requireAudit() })

	var ws, agent, tool, base, py string
	record := func(ctx SpecContext, backend string) outcome {
		return sysgate(ctx, "record", "--backend", backend, "--agent", "held", "--dir", ws, "-o", base, "--", py, agent, "benign")
	}
	setup := func(ctx SpecContext, backend string) {
		ws = GinkgoT().TempDir()
		Expect(os.Chmod(ws, 0o755)).To(Succeed())
		src, err := os.ReadFile("testdata/held_agent.py")
		Expect(err).NotTo(HaveOccurred())
		agent, tool = filepath.Join(ws, "agent.py"), filepath.Join(ws, "tool.sh")
		Expect(os.WriteFile(agent, src, 0o644)).To(Succeed())
		Expect(os.WriteFile(tool, []byte("#!/bin/sh\nexit 0\n"), 0o755)).To(Succeed())
		// The workspace is a checkout: the repository's programs are
		// the ones git tracks.
		for _, args := range [][]string{{"init", "-q"}, {"add", "agent.py", "tool.sh"}} {
			out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), "git %v: %s", args, out)
		}
		py, err = filepath.EvalSymlinks(testutil.Python(GinkgoT()))
		Expect(err).NotTo(HaveOccurred())
		base = filepath.Join(GinkgoT().TempDir(), "held.yaml")
		o := record(ctx, backend)
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
	}

	for _, backend := range []string{"audit", "notify"} {
		It("lets an edited agent pass, and record reports the pin it drops, on "+backend, func(ctx SpecContext) {
			setup(ctx, backend)
			f, err := os.OpenFile(agent, os.O_APPEND|os.O_WRONLY, 0)
			Expect(err).NotTo(HaveOccurred())
			_, err = f.WriteString("# an edit in a pull request\n")
			Expect(err).NotTo(HaveOccurred())
			Expect(f.Close()).To(Succeed())
			o := sysgate(ctx, "check", "--backend", backend, "--format", "json", "--dir", ws, "-b", base, "--", py, agent, "benign")
			Expect(o.Code).To(Equal(cli.ExitOK), "an edit of the agent is judged by what it does, not by a hash: %s", o)
			data, err := os.ReadFile(base)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(ContainSubstring("  - "+agent+"\n"), "record names the agent's script by path")
			Expect(string(data)).To(ContainSubstring("  - "+tool+"\n"), "record names the helper by path")
			// The shell that runs tool.sh lies outside the workspace and
			// a root agent can replace it: it keeps its content pin.
			Expect(string(data)).To(MatchRegexp(`(?m)^  - path: /usr/\S+\n(    reason: .*\n)?    sha256: [0-9a-f]{64}$`), "record pins a program outside the workspace")

			// A baseline an older record wrote pinned the script: the
			// next record drops the pin and says so.
			pinned := strings.Replace(string(data), "  - "+agent+"\n", "  - path: "+agent+"\n    sha256: "+strings.Repeat("a", 64)+"\n", 1)
			Expect(os.WriteFile(base, []byte(pinned), 0o644)).To(Succeed())
			o = record(ctx, backend)
			Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
			Expect(o.Stderr).To(ContainSubstring("1 program pin(s) changed"), "%s", o)
			Expect(o.Stderr).To(ContainSubstring(agent+": pin dropped"), "%s", o)
			data, err = os.ReadFile(base)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(ContainSubstring("  - "+agent+"\n"), "the pin is gone")
		})

		for _, mode := range []string{"check", "enforce"} {
			It("catches a helper the agent rewrites during the run, "+mode+" on "+backend, func(ctx SpecContext) {
				setup(ctx, backend)
				// What holds the helper is the run, not a pin: without
				// one the rewrite was clean (an older record pinned it,
				// and that pin made every edit of it a failing gate).
				unpinWorkspace(base, ws)
				o := sysgate(ctx, mode, "--backend", backend, "--format", "json", "--dir", ws, "-b", base, "--", py, agent, "escape")
				expectReplaced(mode, o, tool, And(ContainSubstring("at the run's start"), ContainSubstring("changed a program of the workspace")))
			})
		}
	}
})

// unpinWorkspace removes the content pins of the baseline at path from
// the programs in dir.
func unpinWorkspace(path, dir string) {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	doc, err := baseline.ParseDocument(path, data)
	Expect(err).NotTo(HaveOccurred())
	for i, e := range doc.Programs {
		if strings.HasPrefix(e.Path, dir+"/") {
			doc.Programs[i].SHA256 = nil
		}
	}
	Expect(os.WriteFile(path, doc.Format(), 0o644)).To(Succeed())
}
