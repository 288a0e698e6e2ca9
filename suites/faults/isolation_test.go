package faults_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/verdict"
)

// credentialScan is the agent of the third red team's fifth hole: without
// a PID namespace it runs as its caller's uid beside the caller, whose
// environment still holds the runner credentials sysgate kept from the
// agent's own. It prints every /proc/<pid>/environ that has one.
const credentialScan = `#!/bin/sh
for f in /proc/[0-9]*/environ; do
	if grep -qa ghp_redteam5 "$f" 2>/dev/null; then echo "LEAKED $f"; fi
done
echo scanned
`

var _ = Describe("an unprivileged agent reading its caller's credentials from /proc", RequiresAudit, Escape, func() {
	var dir, agent, base string
	asNobody := []string{"setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"}

	BeforeEach(func(ctx SpecContext) {
		requireAudit() // root, to drop to another uid
		testutil.RequireCommand(GinkgoT(), "setpriv", "drops to another uid")
		dir = GinkgoT().TempDir()
		Expect(os.Chmod(dir, 0o777)).To(Succeed())
		agent = filepath.Join(dir, "scan.sh")
		Expect(os.WriteFile(agent, []byte(credentialScan), 0o755)).To(Succeed())
		base = filepath.Join(dir, "scan.yaml")
		o := sysgateAs(ctx, asNobody, nil, "record", "-o", base, "--", "/bin/sh", agent)
		Expect(o.Code).To(Equal(cli.ExitOK), "record as nobody: %s", o)
	})

	// The caller is a shell of the agent's uid with the token in its
	// environment, as a CI step's shell is.
	check := func(ctx context.Context, wrap []string, flags ...string) (outcome, *verdict.Result) {
		GinkgoHelper()
		result := filepath.Join(dir, "result.json")
		_ = os.Remove(result)
		args := append([]string{"check", "--result", result}, flags...)
		o := sysgateAs(ctx, wrap, []string{"GITHUB_TOKEN=ghp_redteam5"}, append(args, "-b", base, "--", "/bin/sh", agent)...)
		data, err := os.ReadFile(result)
		if err != nil {
			return o, nil
		}
		var r verdict.Result
		Expect(json.Unmarshal(data, &r)).To(Succeed())
		return o, &r
	}

	It("finds none: the run has a PID namespace of its own in a user namespace of its own", func(ctx SpecContext) {
		o, r := check(ctx, asNobody)
		Expect(o.Code).To(Equal(cli.ExitOK), "%s", o)
		Expect(o.Stdout).To(ContainSubstring("scanned"), "the scan did not run: %s", o)
		Expect(o.Stdout).NotTo(ContainSubstring("LEAKED"), "the agent read the caller's token: %s", o)
		Expect(r.IsolationUnavailable).To(BeEmpty(), "%s", o)
		Expect(r.DroppedEnv).To(ContainElement("GITHUB_TOKEN"))
	})

	It("is refused where no user namespace can be made, and reported when the caller allows it anyway", func(ctx SpecContext) {
		noUserns := append([]string{bin.NoUserns}, asNobody...)
		o, r := check(ctx, noUserns)
		Expect(o.Code).To(Equal(cli.ExitInconclusive), "%s", o)
		Expect(r).To(BeNil(), "the agent ran: %s", o)
		Expect(o.Stderr).To(And(ContainSubstring("GITHUB_TOKEN"), ContainSubstring("--allow-unisolated"), ContainSubstring("user namespace")), "%s", o)
		Expect(o.Stdout).NotTo(ContainSubstring("scanned"), "the agent ran: %s", o)

		// The files observer refuses the scan's reads of other processes'
		// environ whatever the isolation; without it (--no-files) nothing
		// but the PID namespace stood between the agent and its caller.
		o, r = check(ctx, noUserns, "--allow-unisolated", "--no-files")
		Expect(o.Stdout).To(ContainSubstring("LEAKED"), "without isolation the scan should reach the caller: %s", o)
		Expect(r).NotTo(BeNil(), "%s", o)
		Expect(r.IsolationUnavailable).NotTo(BeEmpty())
		Expect(o.Output()).To(ContainSubstring("read the environment and memory of those of its uid"), "%s", o)
	})
})

// sysgateAs runs the built CLI through wrap (setpriv, nouserns) from a
// shell that stays its parent, with a clean environment plus env.
func sysgateAs(ctx context.Context, wrap, env []string, args ...string) outcome {
	GinkgoHelper()
	args = recordOnce(args)
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = ci.ShellQuote(a)
	}
	// The shell forks sysgate instead of exec'ing it (the trailing
	// command), so it stays the caller, its environment in /proc.
	script := ci.ShellQuote(bin.Sysgate) + " " + strings.Join(quoted, " ") + "; code=$?; exit $code"
	argv := append(append(append([]string{}, wrap...), "env", "-i", "HOME=/", "PATH=/usr/bin:/bin"), env...)
	argv = append(argv, "/bin/sh", "-c", script)
	path, err := exec.LookPath(argv[0])
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		Fail(fmt.Sprintf("run %v: %v", argv, err))
	}
	return outcome{Code: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String()}
}
