package ci

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// hintBaseline has every list a hint names, so that each hint lands in
// one that exists.
const hintBaseline = `version: 1
agent: hints
programs:
  - /usr/bin/git
files:
  read:
    - /etc/ld.so.cache
network:
  connect:
    - "127.0.0.1:{port}"
syscalls:
  x86_64:
    - read
    - socket(AF_UNIX)
    - write
`

// hintCtx is the run's placeholders: the sensitive file is in its home.
var hintCtx = baseline.FileContext{Workspace: "/work/repo", Home: "/home/u", Tmp: "/tmp"}

// hintFinding is one violation of the run below, and how to tell that a
// baseline allows it.
type hintFinding struct {
	what    string
	allowed func(*baseline.Profile) bool
}

// hintRun is a check run with a violation of every kind, placed in the
// baseline at path as the harness places them (baseline.Diff for the
// syscalls, ProgramInsert for the programs).
func hintRun(t *testing.T, path string) (*verdict.Result, []hintFinding) {
	t.Helper()
	p, err := baseline.LoadStack(path)
	if err != nil {
		t.Fatal(err)
	}
	obs := baseline.NewObservation("hints")
	obs.Runs = 1
	var findings []hintFinding
	for _, name := range []string{"getppid", "bpf", "socket(AF_INET)"} { // plain, risky, a new class
		obs.Add(scmp.X86_64, name, 1)
		findings = append(findings, hintFinding{"syscall " + name, func(p *baseline.Profile) bool { return p.Allows(scmp.X86_64, name) }})
	}
	res := &verdict.Result{Agent: "hints", Mode: baseline.ModeCheck, Arch: scmp.X86_64, Verdict: verdict.VerdictViolation, Baselines: []string{path}}
	for _, f := range baseline.Diff(p, obs).New {
		res.Violations = append(res.Violations, verdict.Violation{Arch: f.Arch, Syscall: f.Syscall, Count: 1, Risk: f.Risk, Level: f.Level,
			PID: 7, Exe: "/usr/bin/python3", Comm: "python3", File: f.File, Line: f.Line})
	}
	if len(res.Violations) != 3 {
		t.Fatalf("baseline.Diff: %d new syscalls, want 3: %+v", len(res.Violations), res.Violations)
	}
	for _, prog := range []string{"/usr/bin/curl", "/opt/tools/bin/fmt-check"} { // risky, plain
		r, l := risk.OfProgram(prog)
		file, line := p.ProgramInsert(prog)
		res.ProgramViolations = append(res.ProgramViolations, verdict.ProgramViolation{ProgramRun: verdict.ProgramRun{Path: prog, Role: verdict.RoleProgram,
			Argv: []string{filepath.Base(prog)}, Parent: "/usr/bin/python3", PID: 8, Count: 1, Risk: r, Level: l}, File: file, Line: line})
		findings = append(findings, hintFinding{"program " + prog, func(p *baseline.Profile) bool { return p.AllowsProgram(prog) }})
	}
	if r, _ := risk.OfProgram("/usr/bin/curl"); !r.Risky() {
		t.Fatal("/usr/bin/curl is not risky: the test needs a risky program")
	}
	for _, file := range []string{"/srv/data/in.txt", "/home/u/.ssh/id_rsa"} { // plain, sensitive
		v := verdict.FileViolation{FileTouch: verdict.FileTouch{Path: file, Op: baseline.FileRead, Syscall: "openat", PID: 9, Exe: "/usr/bin/python3", Count: 1}, File: path}
		if e, ok := baseline.SensitivePath(hintCtx, file, baseline.FileRead); ok {
			v.Sensitive, v.Level = e.Label, string(e.Level)
		}
		res.FileViolations = append(res.FileViolations, v)
		findings = append(findings, hintFinding{"file " + file, func(p *baseline.Profile) bool { return p.FileAllows(hintCtx, file, baseline.FileRead) }})
	}
	if res.FileViolations[1].Sensitive == "" {
		t.Fatal("~/.ssh/id_rsa is not sensitive: the test needs a sensitive file")
	}
	for _, dest := range []string{"127.0.0.2:9", "169.254.169.254:80"} { // plain, risky
		v := verdict.NetworkViolation{NetworkTouch: verdict.NetworkTouch{Op: baseline.NetConnect, Dest: dest, Program: "/usr/bin/python3", Syscall: "connect", PID: 9, Count: 1}, File: path}
		if entries := baseline.GeneraliseNetwork(hintCtx, []baseline.ObservedDestination{{Op: v.Op, Dest: mustDest(t, dest), Program: v.Program, Count: 1}}); len(entries) > 0 {
			v.Risk, v.Level, _ = baseline.NetworkRisk(entries[0])
		}
		res.NetworkViolations = append(res.NetworkViolations, v)
		findings = append(findings, hintFinding{"connect " + dest, func(p *baseline.Profile) bool {
			return p.NetworkMatcher(hintCtx).Allows(baseline.NetConnect, mustDest(t, dest), "/usr/bin/python3")
		}})
	}
	if !res.NetworkViolations[1].Risk.Risky() {
		t.Fatal("169.254.169.254:80 is not risky: the test needs a risky destination")
	}
	for _, f := range findings {
		if f.allowed(p) {
			t.Fatalf("the baseline allows %s already", f.what)
		}
	}
	return res, findings
}

func mustDest(t *testing.T, s string) baseline.Destination {
	t.Helper()
	d, err := baseline.ParseDestination(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// hint is one fix hint as a renderer printed it: the lines to add, and
// where: a list and a line (syscalls, programs), or a section and a key
// (files, network), whose list the lines start.
type hint struct {
	from    string
	line    int    // the line the first added line takes; 0: the top of key's list
	section string // "files", "network"; "" with a line
	key     string // "read", "connect"
	lines   []string
}

var (
	// "add to the x86_64 list here", "add to programs: at f.yaml:4:",
	// "add to `files:` `read:` in the baseline".
	hintAt      = regexp.MustCompile(`add to (?:the \S+ list|programs:) (?:here|at \S+:(\d+))`)
	hintSection = regexp.MustCompile("add to `(files|network):` `(\\w+):` in the baseline")
)

// parseHints finds the hints in one message: a sentence that says where,
// then the lines to add, each indented by at least hintIndent beyond the
// sentence. line is where a "here" points (an annotation's line).
func parseHints(t *testing.T, from, msg string, line int) []hint {
	t.Helper()
	var out []hint
	rows := strings.Split(msg, "\n")
	for i := 0; i < len(rows); i++ {
		h := hint{from: from, line: line}
		if m := hintSection.FindStringSubmatch(rows[i]); m != nil {
			h.section, h.key, h.line = m[1], m[2], 0
		} else if m := hintAt.FindStringSubmatch(rows[i]); m != nil {
			if m[1] != "" {
				h.line, _ = strconv.Atoi(m[1])
			}
		} else {
			continue
		}
		indent := len(rows[i]) - len(strings.TrimLeft(rows[i], " ")) + len(hintIndent)
		for i+1 < len(rows) && strings.HasPrefix(rows[i+1], strings.Repeat(" ", indent)) {
			i++
			h.lines = append(h.lines, rows[i][indent:])
		}
		if len(h.lines) == 0 || (h.section == "" && h.line == 0) {
			t.Fatalf("%s: a hint without lines or a place: %q", from, msg)
		}
		out = append(out, h)
	}
	return out
}

// entries counts the entries h adds: its lines that start a list item.
func (h hint) entries() int {
	n := 0
	for _, l := range h.lines {
		if strings.HasPrefix(l, "- ") {
			n++
		}
	}
	return n
}

// apply adds h's lines to a baseline's text as a person following the
// hint would: at the line it names, or at the top of the list under
// section and key, each at the indentation of the list it joins.
func (h hint) apply(t *testing.T, text string) string {
	t.Helper()
	rows := strings.Split(text, "\n")
	at := h.line - 1
	if h.section != "" {
		at = -1
		for i, r := range rows {
			if r == h.section+":" {
				for j := i + 1; j < len(rows) && strings.HasPrefix(rows[j], " "); j++ {
					if strings.TrimSpace(rows[j]) == h.key+":" {
						at = j + 1
					}
				}
			}
		}
		if at < 0 {
			t.Fatalf("%s: no %s: %s: in the baseline", h.from, h.section, h.key)
		}
	}
	if at < 0 || at > len(rows) {
		t.Fatalf("%s: line %d is outside the baseline", h.from, h.line)
	}
	// The list's indentation: the item at the place, else the one before.
	indent := ""
	for _, i := range []int{at, at - 1} {
		if i >= 0 && i < len(rows) && strings.HasPrefix(strings.TrimSpace(rows[i]), "- ") {
			indent = rows[i][:len(rows[i])-len(strings.TrimLeft(rows[i], " "))]
			break
		}
	}
	if indent == "" {
		t.Fatalf("%s: line %d is not in a list:\n%s", h.from, h.line, text)
	}
	added := make([]string, len(h.lines))
	for i, l := range h.lines {
		added[i] = indent + l
	}
	return strings.Join(append(rows[:at:at], append(added, rows[at:]...)...), "\n")
}

// TestFixHintsAreValidAsWritten takes every hint the renderers print for
// a run with a violation of each kind (a syscall, a new argument class,
// a risky syscall, a program, a risky program, a file, a sensitive file,
// a destination, a risky destination), adds its lines to the baseline
// literally, and loads the result: it must load (warnings allowed: a
// placeholder reason is one) and allow what the hint was about.
func TestFixHintsAreValidAsWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hints.yaml")
	if err := os.WriteFile(path, []byte(hintBaseline), 0o644); err != nil {
		t.Fatal(err)
	}
	res, findings := hintRun(t, path)
	report := &Report{Runs: []Run{{Result: res}}}

	var hints []hint
	for _, a := range report.Annotations() {
		hints = append(hints, parseHints(t, "annotation "+a.Title, a.Message, a.Line)...)
	}
	var sarif bytes.Buffer
	if err := report.WriteSARIF(&sarif); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Message struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	for _, r := range log.Runs[0].Results {
		hints = append(hints, parseHints(t, "sarif "+r.RuleID, r.Message.Text, 0)...)
	}
	var text bytes.Buffer
	if err := WriteText(&text, res, Palette{}); err != nil {
		t.Fatal(err)
	}
	hints = append(hints, parseHints(t, "text", text.String(), 0)...)

	// Each finding has a hint in each renderer that gives one: the
	// annotations and SARIF all of them, the text its programs and
	// risky syscalls (the table's ADD AT column places the others).
	bySource := map[string]int{}
	for _, h := range hints {
		bySource[strings.Fields(h.from)[0]] += h.entries()
	}
	if want := len(findings); bySource["annotation"] != want || bySource["sarif"] != want || bySource["text"] != 3 {
		t.Fatalf("hinted entries by renderer %v, want %d in the annotations and in SARIF, 3 in the text", bySource, want)
	}

	for _, h := range hints {
		fixed := h.apply(t, hintBaseline)
		fixedPath := filepath.Join(dir, "fixed.yaml")
		if err := os.WriteFile(fixedPath, []byte(fixed), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := baseline.LoadStack(fixedPath)
		if err != nil {
			t.Errorf("%s: the baseline with %q does not load: %v\n%s", h.from, h.lines, err, fixed)
			continue
		}
		// Each entry the hint adds allows one finding, and nothing else
		// does: the findings it was about are gone.
		var gone []string
		for _, f := range findings {
			if f.allowed(p) {
				gone = append(gone, f.what)
			}
		}
		if len(gone) != h.entries() {
			t.Errorf("%s: the baseline with %q allows %q, want %d findings:\n%s", h.from, h.lines, gone, h.entries(), fixed)
		}
		// What a run checks beyond the parser: an entry that names a
		// sensitive path of this run's home needs a reason.
		for _, e := range p.SensitiveFileProblems(hintCtx) {
			if !e.Warning {
				t.Errorf("%s: the baseline with %q fails a run here: %v", h.from, h.lines, e)
			}
		}
		for _, w := range p.Warnings() {
			if w.Kind != baseline.KindUnreviewed && w.Kind != baseline.KindArgBlind {
				t.Errorf("%s: the baseline with %q warns: %v", h.from, h.lines, w)
			}
		}
	}
	t.Logf("%d hints applied", len(hints))
}
