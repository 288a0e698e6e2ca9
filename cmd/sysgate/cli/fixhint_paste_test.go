package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// hintTarget reads where a hint's lines go: "add to `files:` `write:`"
// or "add to the x86_64 list".
var hintTarget = regexp.MustCompile("add to (?:`(files):` `([a-z]+):`|the ([a-z0-9_]+) list|(programs): (?:here|at))")

// pastedHint is a hint's lines and the list they go into.
type pastedHint struct {
	section, list string
	lines         []string
}

// hintsOf are the fix hints of a check's SARIF results (every finding;
// GitHub annotations stop at 10 per step).
func hintsOf(t *testing.T, sarif string) []pastedHint {
	t.Helper()
	var doc struct {
		Runs []struct {
			Results []struct {
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif), &doc); err != nil || len(doc.Runs) != 1 {
		t.Fatalf("SARIF: %v\n%s", err, sarif)
	}
	var out []pastedHint
	for _, res := range doc.Runs[0].Results {
		msg := res.Message.Text
		m := hintTarget.FindStringSubmatchIndex(msg)
		if m == nil {
			t.Errorf("a finding without a hint to paste: %s", msg)
			continue
		}
		sub := hintTarget.FindStringSubmatch(msg)
		h := pastedHint{section: "files", list: sub[2]}
		switch {
		case sub[4] != "":
			h.section, h.list = "programs", ""
		case sub[1] == "":
			h.section, h.list = "syscalls", sub[3]
		}
		for _, l := range strings.Split(msg[m[1]:], "\n")[1:] {
			if entry, ok := strings.CutPrefix(l, "    "); ok {
				h.lines = append(h.lines, entry)
			}
		}
		if len(h.lines) == 0 {
			t.Errorf("a hint without lines: %s", msg)
		}
		out = append(out, h)
	}
	return out
}

// paste adds each hint's lines (once) to its list in the baseline's
// text, making the list when the section lacks it.
func paste(text string, hints []pastedHint) string {
	lines := strings.Split(text, "\n")
	done := map[string]bool{}
	for _, h := range hints {
		key := h.section + "/" + h.list + "/" + strings.Join(h.lines, "\n")
		if done[key] {
			continue // one line covers every access a hint repeats
		}
		done[key] = true
		sec := slices.Index(lines, h.section+":")
		if h.list == "" {
			// A top-level list (programs): its items at two spaces.
			var add []string
			for _, l := range h.lines {
				add = append(add, "  "+l)
			}
			lines = slices.Insert(lines, sec+1, add...)
			continue
		}
		at := -1
		for i := sec + 1; i < len(lines) && strings.HasPrefix(lines[i], " "); i++ {
			if lines[i] == "  "+h.list+":" {
				at = i
				break
			}
		}
		var add []string
		if at < 0 {
			at = sec
			add = append(add, "  "+h.list+":")
		}
		for _, l := range h.lines {
			add = append(add, "    "+l)
		}
		lines = slices.Insert(lines, at+1, add...)
	}
	return strings.Join(lines, "\n")
}

// The case: an agent recorded where PYTHONDONTWRITEBYTECODE=1
// (this machine's image sets it) is checked where it is unset, so
// CPython writes __pycache__/agentlib.cpython-3X.pyc through a randomly
// suffixed temporary name, and the agent now also reads /etc/hostname
// and runs ./tool.sh, a script of its checkout. Every hint the check
// prints (SARIF: all findings) names a placeholder, a system path or a
// path relative to the baseline, never the checkout or the random name;
// pasted into the baseline as written, the same check passes. The
// drift explanation names the variable. On both backends.
func TestEveryFixHintPastedMakesTheCheckPass(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3: %v", err)
	}
	for _, backend := range []string{"audit", "notify"} {
		t.Run(backend, func(t *testing.T) {
			dir := checkoutFor(t, backend)
			files := map[string]string{
				"agentlib.py": "def work():\n    return 42\n",
				"agent.py": "import os, subprocess, agentlib\nif os.environ.get('READ_EXTRA'):\n    open('/etc/hostname').read()\n" +
					"    subprocess.run(['./tool.sh'], check=True)\nprint(agentlib.work())\n",
				"tool.sh": "#!/bin/sh\nexit 0\n",
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var base []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "PYTHONDONTWRITEBYTECODE=") && !strings.HasPrefix(kv, "READ_EXTRA=") {
					base = append(base, kv)
				}
			}
			sysgate := func(env []string, args ...string) (int, string, string) {
				if err := os.RemoveAll(filepath.Join(dir, "__pycache__")); err != nil {
					t.Fatal(err)
				}
				var out, errb bytes.Buffer
				c := &Command{Stdout: &out, Stderr: &errb, Env: env}
				code := c.Main(append([]string{"sysgate"}, args...))
				return code, out.String(), errb.String()
			}
			path := filepath.Join(dir, "agent.yaml")
			recordEnv := append(slices.Clone(base), "PYTHONDONTWRITEBYTECODE=1")
			if code, _, stderr := sysgate(recordEnv, "record", "--runs", "1", "--backend", backend, "--dir", dir, "-o", path, "--", "python3", "agent.py"); code != ExitOK {
				t.Fatalf("record: %d\n%s", code, stderr)
			}
			checkEnv := append(slices.Clone(base), "READ_EXTRA=1")
			result := filepath.Join(t.TempDir(), "result.json")
			check := []string{"check", "--backend", backend, "--dir", dir, "-b", path, "--format", "sarif", "--result", result, "--", "python3", "agent.py"}
			code, stdout, stderr := sysgate(checkEnv, check...)
			if code != ExitViolation {
				t.Fatalf("check of the changed agent: %d, want %d\n%s%s", code, ExitViolation, stdout, stderr)
			}
			var r verdict.Result
			if data, err := os.ReadFile(result); err != nil || json.Unmarshal(data, &r) != nil {
				t.Fatalf("result: %v", err)
			}
			if !slices.ContainsFunc(r.FileViolations, func(v verdict.FileViolation) bool { return regexp.MustCompile(`\.pyc\.[0-9]{6,}$`).MatchString(v.Path) }) {
				t.Fatalf("no write of a randomly suffixed .pyc: the test proves nothing\n%s", stdout)
			}
			if r.Drift == nil || !strings.Contains(baseline.DescribeChanges(r.Drift.Changes), "PYTHONDONTWRITEBYTECODE=1 → PYTHONDONTWRITEBYTECODE unset") {
				t.Errorf("the drift does not name PYTHONDONTWRITEBYTECODE: %+v", r.Drift)
			}
			hints := hintsOf(t, stdout)
			home, _ := filepath.EvalSymlinks(os.Getenv("HOME"))
			realDir, _ := filepath.EvalSymlinks(dir)
			for _, h := range hints {
				for _, l := range h.lines {
					if strings.Contains(l, realDir) || (home != "" && home != "/" && strings.Contains(l, home+"/")) || regexp.MustCompile(`[0-9]{6,}`).MatchString(l) {
						t.Errorf("hint %s %s: %q names the checkout, the home or a random name", h.section, h.list, l)
					}
				}
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			pasted := paste(string(text), hints)
			if err := os.WriteFile(path, []byte(pasted), 0o644); err != nil {
				t.Fatal(err)
			}
			check = slices.DeleteFunc(check, func(s string) bool { return s == "sarif" || s == "--format" })
			if code, stdout, stderr := sysgate(checkEnv, check...); code != ExitOK {
				t.Fatalf("check after pasting every hint: %d\n%s%s\n--- %s ---\n%s", code, stdout, stderr, path, pasted)
			}
		})
	}
}
