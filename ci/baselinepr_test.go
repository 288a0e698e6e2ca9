package ci

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/testutil"
)

// The update job of the reusable baseline-update workflow
// (.github/workflows/sysgate-baseline-update.yml) is sysgate action baseline-pr
// open. These tests run it with real git against a bare repository as the
// remote, and the sysgate binary of this checkout; gh is the one stand-in
// (there is no GitHub here): a script that logs its arguments and the body
// it is given, and answers `pr list` from a file.

// repoRoot is the checkout's root, seen from this package's directory.
const repoRoot = ".."

const prBaseline = `# sysgate baseline: reviewed in pull requests. Regenerate with ` + "`make baseline-update`" + `.

version: 1
agent: demo
programs:
  - /usr/bin/true
syscalls:
  x86_64:
    - close
    - execve
    - exit_group
    - getppid
    - read
`

// prObservation is a shard's observation of demo: getppid is gone, write
// and (risky) mount are new; its files and destinations give the file
// the files and network sections that validate --strict asks for.
const prObservation = `{"agent": "demo", "runs": 1,
 "syscalls": {"x86_64": {"close": 1, "execve": 1, "exit_group": 1, "read": 2, "write": 1, "mount": 1}},
 "programs": {"/usr/bin/true": 1},
 "files": {"read": {"/etc/ld.so.cache": 1}, "exec": {"/usr/bin/true": 1}},
 "network": {"connect": {"127.0.0.1:8080": {"/usr/bin/true": 1}}}}`

const fakeGH = `#!/usr/bin/env bash
# gh for tests: log the call, keep the body, answer pr list from $GH_STATE/open.
set -euo pipefail
echo "gh $*" >>"$GH_STATE/calls"
prev=""
for a in "$@"; do
	if [ "$prev" = --body-file ]; then cp "$a" "$GH_STATE/body.md"; fi
	prev=$a
done
case "$1 $2" in
"pr list") cat "$GH_STATE/open" 2>/dev/null || true ;;
"pr create") echo "https://github.example/o/r/pull/1"; echo 1 >"$GH_STATE/open" ;;
"pr view") echo "https://github.example/o/r/pull/$(cat "$GH_STATE/open")" ;;
"pr edit") ;;
*) echo "fake gh: unexpected $*" >&2; exit 2 ;;
esac
`

// prEnv is a git remote with main holding baselines/demo.yaml, the shards
// a record job would leave, and what the script's environment needs.
type prEnv struct {
	t              *testing.T
	dir            string
	origin, shards string
	ghState        string
	env            []string
}

func newPREnv(t *testing.T, sysgate string) *prEnv {
	t.Helper()
	testutil.RequireCommand(t, "git", "the baseline update commits and pushes with git")
	dir := t.TempDir()
	e := &prEnv{t: t, dir: dir, origin: filepath.Join(dir, "origin.git"), shards: filepath.Join(dir, "shards"),
		ghState: filepath.Join(dir, "gh")}
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, e.ghState, filepath.Join(e.shards, "shard-0", "observations")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sysgate, filepath.Join(bin, "sysgate")); err != nil {
		t.Fatal(err)
	}
	e.env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GH_STATE="+e.ghState,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=reviewer", "GIT_AUTHOR_EMAIL=reviewer@example.invalid",
		"GIT_COMMITTER_NAME=reviewer", "GIT_COMMITTER_EMAIL=reviewer@example.invalid",
		"GITHUB_SERVER_URL=https://github.example", "GITHUB_REPOSITORY=o/r",
		"GITHUB_OUTPUT="+filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY=",
		"BASE_BRANCH=main", "SYSGATE_PACKAGES=", "SYSGATE_BASELINES=baselines/demo.yaml",
		"RUN_URL=https://github.example/o/r/actions/runs/1")
	e.git("", "init", "-q", "--bare", "-b", "main", e.origin)
	seed := e.clone("seed")
	e.write(seed, "baselines/demo.yaml", prBaseline)
	e.git(seed, "add", "-A")
	e.git(seed, "commit", "-q", "-m", "baselines")
	e.git(seed, "push", "-q", "origin", "main")
	e.write(e.shards, "shard-0/arch", "x86_64\n")
	e.write(e.shards, "shard-0/observations/demo.json", prObservation)
	return e
}

func (e *prEnv) git(dir string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, e.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (e *prEnv) clone(name string) string {
	e.t.Helper()
	dir := filepath.Join(e.dir, name)
	e.git("", "clone", "-q", e.origin, dir)
	return dir
}

func (e *prEnv) write(dir, name, content string) {
	e.t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *prEnv) read(name string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		e.t.Fatal(err)
	}
	return string(data)
}

// open runs sysgate action baseline-pr open in a fresh clone of main, as
// the update job runs it in its checkout, and returns its combined output
// and error.
func (e *prEnv) open(name string, extraEnv ...string) (string, error) {
	e.t.Helper()
	checkout := e.clone(name)
	cmd := e.baselinePR("open", e.shards)
	cmd.Dir = checkout
	cmd.Env = append(append([]string{}, e.env...), extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// baselinePR is sysgate action baseline-pr with args, the sysgate this
// environment's PATH has.
func (e *prEnv) baselinePR(args ...string) *exec.Cmd {
	return exec.Command(filepath.Join(e.dir, "bin", "sysgate"), append([]string{"action", "baseline-pr"}, args...)...)
}

// remoteFile is a file on a branch of the remote.
func (e *prEnv) remoteFile(branch, name string) string {
	e.t.Helper()
	return e.git(e.origin, "show", branch+":"+name)
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func buildSysgate(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sysgate")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/sysgate")
	cmd.Dir = repoRoot
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/sysgate: %v\n%s", err, msg)
	}
	return out
}

func TestBaselinePRScript(t *testing.T) {
	sysgate := buildSysgate(t)
	const bot = "sysgate/baseline-update/main"

	t.Run("opens a pull request with what to review", func(t *testing.T) {
		e := newPREnv(t, sysgate)
		if out, err := e.open("job1"); err != nil {
			t.Fatalf("open: %v\n%s", err, out)
		}
		file := e.remoteFile(bot, "baselines/demo.yaml")
		for _, want := range []string{`- mount: "unreviewed: seen in record mode"`, "- write"} {
			if !strings.Contains(file, want) {
				t.Errorf("%s:baselines/demo.yaml has no %q:\n%s", bot, want, file)
			}
		}
		if strings.Contains(file, "getppid") {
			t.Errorf("getppid, which no run made, was kept:\n%s", file)
		}
		if n := e.git(e.origin, "rev-list", "--count", "main.."+bot); n != "1" {
			t.Errorf("%s has %s commits on main, want 1", bot, n)
		}
		calls := e.read("gh/calls")
		if !strings.Contains(calls, "gh pr list --head "+bot+" --base main --state open") || !strings.Contains(calls, "gh pr create --base main --head "+bot) {
			t.Errorf("gh calls:\n%s", calls)
		}
		body := e.read("gh/body.md")
		line := 1 + strings.Count(file[:strings.Index(file, "- mount:")], "\n")
		sha := e.git(e.origin, "rev-parse", bot)
		link := "[`baselines/demo.yaml:" + strconv.Itoa(line) + "`](https://github.example/o/r/blob/" + sha + "/baselines/demo.yaml#L" + strconv.Itoa(line) + ")"
		for _, want := range []string{"## sysgate baseline update", "### Review before merging", "- [ ] " + link, "[unreviewed]"} {
			if !strings.Contains(body, want) {
				t.Errorf("pull-request body has no %q:\n%s", want, body)
			}
		}
		output := e.read("output")
		for _, want := range []string{"changed=true", "pull-request=https://github.example/o/r/pull/1"} {
			if !strings.Contains(output, want) {
				t.Errorf("GITHUB_OUTPUT has no %q:\n%s", want, output)
			}
		}
	})

	t.Run("commits on top of a reviewer's edits, never over them", func(t *testing.T) {
		e := newPREnv(t, sysgate)
		if out, err := e.open("job1"); err != nil {
			t.Fatalf("open: %v\n%s", err, out)
		}
		// A reviewer gives mount its reason on the bot branch.
		rev := e.clone("reviewer")
		e.git(rev, "checkout", "-q", bot)
		file, err := os.ReadFile(filepath.Join(rev, "baselines", "demo.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		e.write(rev, "baselines/demo.yaml", strings.Replace(string(file), "unreviewed: seen in record mode", "the agent mounts its scratch tmpfs", 1))
		e.git(rev, "commit", "-q", "-am", "review: mount")
		e.git(rev, "push", "-q", "origin", bot)
		reviewed := e.git(rev, "rev-parse", "HEAD")

		// The next update records something new.
		e.write(e.shards, "shard-0/observations/demo.json", strings.Replace(prObservation, `"mount": 1`, `"mount": 1, "getuid": 1`, 1))
		if out, err := e.open("job2"); err != nil {
			t.Fatalf("open: %v\n%s", err, out)
		}
		if err := exec.Command("git", "-C", e.origin, "merge-base", "--is-ancestor", reviewed, bot).Run(); err != nil {
			t.Fatalf("the reviewer's commit %s is not on %s any more (force-pushed?): %v", reviewed, bot, err)
		}
		file2 := e.remoteFile(bot, "baselines/demo.yaml")
		for _, want := range []string{`- mount: the agent mounts its scratch tmpfs`, "- getuid"} {
			if !strings.Contains(file2, want) {
				t.Errorf("after the second update, no %q:\n%s", want, file2)
			}
		}
		if n := e.git(e.origin, "rev-list", "--count", reviewed+".."+bot); n != "1" {
			t.Errorf("%s has %s commits on the reviewer's, want 1", bot, n)
		}
		calls := e.read("gh/calls")
		if !strings.Contains(calls, "gh pr edit 1 --body-file") || strings.Count(calls, "gh pr create") != 1 {
			t.Errorf("the open pull request was not edited (or a second was created):\n%s", calls)
		}
		body := e.read("gh/body.md")
		if !strings.Contains(body, "committed on top of `"+bot+"`") {
			t.Errorf("the body does not say it built on the edited branch:\n%s", body)
		}
		if strings.Contains(body, "- [ ] ") {
			t.Errorf("nothing is left to review, yet the body lists:\n%s", body)
		}
	})

	t.Run("stops when the branch moves under it", func(t *testing.T) {
		e := newPREnv(t, sysgate)
		if out, err := e.open("job1"); err != nil {
			t.Fatalf("open: %v\n%s", err, out)
		}
		// Someone pushes to the bot branch after the job fetched it and
		// before it pushes: the post-commit hook of the job's clone does it.
		rev := e.clone("reviewer")
		e.git(rev, "checkout", "-q", bot)
		e.write(rev, "notes.txt", "a reviewer's commit\n")
		e.git(rev, "add", "notes.txt")
		e.git(rev, "commit", "-q", "-m", "review")
		theirs := e.git(rev, "rev-parse", "HEAD")
		e.write(e.shards, "shard-0/observations/demo.json", strings.Replace(prObservation, `"mount": 1`, `"mount": 1, "getuid": 1`, 1))
		hooks := filepath.Join(e.dir, "hooks")
		// GIT_CONFIG_COUNT=0: the hook's own push runs no hook.
		e.write(hooks, "post-commit", "#!/bin/sh\nGIT_CONFIG_COUNT=0 git -C "+rev+" push -q origin "+bot+"\n")
		if err := os.Chmod(filepath.Join(hooks, "post-commit"), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := e.open("job2", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="+hooks)
		if err == nil {
			t.Fatalf("open succeeded over a branch that moved:\n%s", out)
		}
		if !strings.Contains(out, "git push to "+bot+" was refused") || !strings.Contains(out, "Nothing was overwritten") {
			t.Errorf("the error does not say what happened:\n%s", out)
		}
		if tip := e.git(e.origin, "rev-parse", bot); tip != theirs {
			t.Errorf("%s is at %s, want the reviewer's %s", bot, tip, theirs)
		}
	})

	t.Run("starts again from the base once the branch is merged", func(t *testing.T) {
		e := newPREnv(t, sysgate)
		if out, err := e.open("job1"); err != nil {
			t.Fatalf("open: %v\n%s", err, out)
		}
		// The pull request is merged; main moves on.
		m := e.clone("maintainer")
		e.git(m, "merge", "-q", "--ff-only", "origin/"+bot)
		e.write(m, "README", "later work\n")
		e.git(m, "add", "README")
		e.git(m, "commit", "-q", "-m", "later")
		e.git(m, "push", "-q", "origin", "main")
		main := e.git(m, "rev-parse", "HEAD")
		e.write(e.shards, "shard-0/observations/demo.json", strings.Replace(prObservation, `"mount": 1`, `"mount": 1, "getuid": 1`, 1))
		if out, err := e.open("job2"); err != nil {
			t.Fatalf("open: %v\n%s", err, out)
		}
		if parent := e.git(e.origin, "rev-parse", bot+"^"); parent != main {
			t.Errorf("%s^ is %s, want main %s", bot, parent, main)
		}
	})

	t.Run("proposes nothing when the baselines match", func(t *testing.T) {
		e := newPREnv(t, sysgate)
		e.write(e.shards, "shard-0/observations/demo.json", `{"agent": "demo", "runs": 1,
 "syscalls": {"x86_64": {"close": 1, "execve": 1, "exit_group": 1, "getppid": 1, "read": 1}}, "programs": {"/usr/bin/true": 1}}`)
		out, err := e.open("job1")
		if err != nil {
			t.Fatalf("open: %v\n%s", err, out)
		}
		if !strings.Contains(e.read("output"), "changed=false") || e.read("gh/calls") != "" {
			t.Errorf("a matching run changed something; output:\n%s\ngh:\n%s", e.read("output"), e.read("gh/calls"))
		}
		if refs := e.git(e.origin, "branch", "--list", bot); refs != "" {
			t.Errorf("pushed %s with nothing to propose", bot)
		}
	})

	// The record job's chain on the real kernel: the action's gate step
	// records, collect makes the shard, open proposes it.
	t.Run("proposes what the action's record step saw", func(t *testing.T) {
		testutil.RequireAudit(t)
		e := newPREnv(t, sysgate)
		e.recordJob(t)
		file := e.remoteFile(bot, "baselines/demo.yaml")
		if !strings.Contains(file, "- exit_group") || !strings.Contains(file, "- path: /usr/bin/true\n    sha256: ") || strings.Contains(file, "getppid") {
			t.Errorf("the proposed baseline is not what /usr/bin/true does:\n%s", file)
		}
	})

	// incremental: true on the real kernel: the committed file is allowed
	// in the kernel, /usr/bin/true's other syscalls are logged and added,
	// and the stale getppid (true never calls it) stays, as the pull
	// request says.
	t.Run("an incremental record step only adds, and says so", func(t *testing.T) {
		testutil.RequireAudit(t)
		e := newPREnv(t, sysgate)
		obs, err := baseline.ReadObservation(filepath.Join(e.recordJob(t, "INPUT_INCREMENTAL=true"), "observations", "demo.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !obs.Incremental || obs.Count(scmp.X86_64, "execve") != 0 || obs.Count(scmp.X86_64, "brk") == 0 {
			t.Errorf("the observation is not an incremental one of /usr/bin/true (execve is allowed, brk is not): %+v", obs)
		}
		file := e.remoteFile(bot, "baselines/demo.yaml")
		if !strings.Contains(file, "- brk") || !strings.Contains(file, "- getppid") {
			t.Errorf("the proposed baseline should add brk and keep the stale getppid:\n%s", file)
		}
		if body := e.read("gh/body.md"); !strings.Contains(body, "Stale entries not checked (incremental)") {
			t.Errorf("the pull request does not say stale entries were not checked:\n%s", body)
		}
	})

	t.Run("starts a first baseline from the one a record job wrote", func(t *testing.T) {
		e := newPREnv(t, sysgate)
		// What the record job left in its checkout and reports directory;
		// collect turns it into the shard the update job downloads.
		job := filepath.Join(e.dir, "record-job")
		e.write(job, "baselines/new/fresh.yaml", strings.Replace(prBaseline, "agent: demo", "agent: fresh", 1))
		e.write(job, "reports/observations/fresh.json", strings.Replace(prObservation, `"agent": "demo"`, `"agent": "fresh"`, 1))
		e.write(job, "reports/summary.md", "# summary\n")
		shard := filepath.Join(e.dir, "shards-first", "shard-0")
		collect := e.baselinePR("collect", "reports", shard)
		collect.Dir = job
		collect.Env = append(append([]string{}, e.env...), "SYSGATE_BASELINES=baselines/new/fresh.yaml")
		if out, err := collect.CombinedOutput(); err != nil {
			t.Fatalf("collect: %v\n%s", err, out)
		}
		for _, name := range []string{"arch", "seed.yaml", "summary.md", "observations/fresh.json"} {
			if _, err := os.Stat(filepath.Join(shard, name)); err != nil {
				t.Errorf("the shard has no %s: %v", name, err)
			}
		}
		e.shards = filepath.Dir(shard)
		out, err := e.open("job1", "SYSGATE_BASELINES=baselines/new/fresh.yaml")
		if err != nil {
			t.Fatalf("open: %v\n%s", err, out)
		}
		if file := e.remoteFile(bot, "baselines/new/fresh.yaml"); !strings.Contains(file, "agent: fresh") || !strings.Contains(file, "- mount:") {
			t.Errorf("the new baseline:\n%s", file)
		}
	})
}

// recordJob is the record job's chain on the real kernel: the action's
// gate step records /usr/bin/true into baselines/demo.yaml (env: more
// inputs), collect makes the shard, open proposes it. It returns the
// reports directory.
func (e *prEnv) recordJob(t *testing.T, env ...string) string {
	t.Helper()
	job := e.clone("record-job")
	reports := filepath.Join(e.dir, "reports")
	gate := exec.Command(filepath.Join(e.dir, "bin", "sysgate"), "action", "gate")
	gate.Dir = job
	gate.Env = append(append(append([]string{}, e.env...), "INPUT_MODE=record", "INPUT_COMMAND=/usr/bin/true",
		"INPUT_BASELINES=baselines/demo.yaml", "INPUT_REPORTS="+reports, "INPUT_TIMEOUT=1m"), env...)
	if out, err := gate.CombinedOutput(); err != nil {
		t.Fatalf("sysgate action gate (record %v): %v\n%s", env, err, out)
	}
	shard := filepath.Join(e.dir, "shards-recorded", "shard-0")
	collect := e.baselinePR("collect", reports, shard)
	collect.Dir, collect.Env = job, e.env
	if out, err := collect.CombinedOutput(); err != nil {
		t.Fatalf("collect: %v\n%s", err, out)
	}
	e.shards = filepath.Dir(shard)
	if out, err := e.open("job1"); err != nil {
		t.Fatalf("open: %v\n%s", err, out)
	}
	return reports
}
