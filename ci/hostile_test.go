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

// hostileName is what an agent can name a symlink it execs through (and
// so its process): a screen clear and a window title for a terminal, a
// block and a mention for a markdown page, and a line break with a pipe
// for a table or a workflow command.
const hostileName = "\x1b[2J\x1b]0;pwned\x07<details>@octocat`|\n::error::x"

// hostileResult is a check run whose every agent-named field holds
// hostileName.
func hostileResult() *verdict.Result {
	exe := "/tmp/" + hostileName
	r := &verdict.Result{
		Agent: "evil-agent", Command: []string{"python3", "agent.py"}, Mode: baseline.ModeCheck, Arch: scmp.X86_64,
		Baselines: []string{"baselines/evil-agent.yaml"}, Verdict: verdict.VerdictViolation, Session: 1,
		Violations: verdict.Violations{{Arch: scmp.X86_64, Syscall: "socket", Number: 41, Count: 2, PID: 12, Exe: exe, Comm: hostileName[:15],
			File: "baselines/evil-agent.yaml", Line: 4, Also: []verdict.Caller{{PID: 13, Exe: exe + "2", Comm: hostileName, Count: 1}}}},
		ProgramViolations: []verdict.ProgramViolation{{ProgramRun: verdict.ProgramRun{Path: exe, Role: verdict.RoleProgram, Requested: "/tmp/link-" + hostileName,
			Argv: []string{exe, hostileName, "<redacted>"}, Parent: exe, PID: 14, Count: 1}, File: "baselines/evil-agent.yaml", Line: 2}},
		Leaked:   []verdict.Leak{{PID: 15, Exe: exe, Comm: hostileName[:15], Lived: time.Second, Cause: verdict.CauseOutlived}},
		Events:   3,
		Started:  time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC),
		Duration: time.Second,
	}
	return r
}

// TestHostileNamesGolden: every renderer shows an agent-named string as
// data (issue 32, item 7; the PR body: update.TestHostileNamesInPRBody). The goldens show the escaped forms; the checks
// below hold whatever the goldens say.
func TestHostileNamesGolden(t *testing.T) {
	r := hostileResult()
	outputs := map[string][]byte{}
	for _, format := range []string{"text", "json", "github", "sarif"} {
		var b bytes.Buffer
		if err := WriteResult(&b, format, r, "", Palette{}); err != nil {
			t.Fatal(err)
		}
		outputs["result.hostile."+format] = b.Bytes()
	}
	var color, junit, summary bytes.Buffer
	if err := WriteText(&color, r, Palette{Color: true}); err != nil {
		t.Fatal(err)
	}
	report := FromResults("", r)
	if err := report.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteSummary(&summary); err != nil {
		t.Fatal(err)
	}
	outputs["result.hostile.color"] = color.Bytes()
	outputs["result.hostile.junit.xml"] = junit.Bytes()
	outputs["hostile.summary.md"] = summary.Bytes()

	for name, out := range outputs {
		golden(t, name, out)
		text := string(out)
		if name == "result.hostile.color" {
			text = ansi.ReplaceAllString(text, "") // the palette's own colours
		}
		for _, raw := range []string{"\x1b", "\x07", "\n::error::x"} {
			if strings.Contains(text, raw) {
				t.Errorf("%s holds %q raw:\n%s", name, raw, text)
			}
		}
		if strings.HasSuffix(name, ".md") {
			for _, raw := range []string{"<details>", "@octocat", "`|"} {
				if strings.Contains(text, raw) {
					t.Errorf("%s holds %q raw:\n%s", name, raw, text)
				}
			}
		}
	}
	if !bytes.Contains(outputs["result.hostile.text"], []byte(`\x1b[2J\x1b]0;pwned\x07<details>@octocat`)) {
		t.Errorf("the text report does not show the name's escapes:\n%s", outputs["result.hostile.text"])
	}
}
