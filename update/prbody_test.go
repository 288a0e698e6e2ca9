package update

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

// A pull request's body lists the program pins an update changes
// (issue 43, item 15), and a file whose only change is a pin changes.
func TestPRBodyListsPinChanges(t *testing.T) {
	f := FileChange{PinChanges: []baseline.PinChange{{Program: "../agents/run.py", Old: []string{strings.Repeat("a", 64)}, Held: true}}}
	if !f.Changed() {
		t.Errorf("a pin change is a change")
	}
	var b strings.Builder
	writeProgramChanges(&b, f)
	if !strings.Contains(b.String(), "- program ../agents/run.py: pin dropped (a program of the workspace") {
		t.Errorf("body:\n%s", b.String())
	}
}

// A pull request's body shows an agent-named string as data (issue 32,
// item 7), as every renderer in ci does (ci.TestHostileNamesGolden): the
// golden shows the escaped form, the checks hold whatever it says.
func TestHostileNamesInPRBody(t *testing.T) {
	const hostileName = "\x1b[2J\x1b]0;pwned\x07<details>@octocat`|\n::error::x"
	u := &Update{Arches: []scmp.Arch{scmp.X86_64}, Files: []FileChange{{Agent: "evil-agent", File: "baselines/evil-agent.yaml", Runs: 1,
		AddedPrograms: []baseline.ProgramFinding{{Program: "/tmp/" + hostileName, Count: 1, Risk: risk.Shell, Level: risk.High, File: "baselines/evil-agent.yaml"}}}}}
	var body bytes.Buffer
	if err := u.WritePRBody(&body, PRBodyOptions{BaselineDir: "baselines"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "update.hostile.pr-body.md", body.Bytes())
	for _, raw := range []string{"\x1b", "\x07", "\n::error::x", "<details>", "@octocat", "`|"} {
		if strings.Contains(body.String(), raw) {
			t.Errorf("the PR body holds %q raw:\n%s", raw, body.String())
		}
	}
}
