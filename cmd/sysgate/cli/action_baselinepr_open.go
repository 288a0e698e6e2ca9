package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// prOpen is the update job: see action_baselinepr.go.
func (a *actionStep) prOpen(args []string) error {
	shards := args[0]
	base := a.getenv("BASE_BRANCH")
	if base == "" {
		return stepErrorf(1, "BASE_BRANCH: the branch the pull request targets")
	}
	branch := a.getenv("BOT_BRANCH")
	if branch == "" {
		branch = "sysgate/baseline-update/" + base
	}
	baselines := strings.Fields(a.getenv("SYSGATE_BASELINES"))
	if len(baselines) == 0 {
		return stepErrorf(ExitUsage, "baselines: empty: name the baseline files (command) or their directory (packages)")
	}
	var dir, target string
	if a.getenv("SYSGATE_PACKAGES") != "" {
		if len(baselines) != 1 {
			return stepErrorf(ExitUsage, "baselines: with packages, name the one directory of baseline files to update (got: %s)", strings.Join(baselines, " "))
		}
		dir = baselines[0]
	} else {
		target = baselines[len(baselines)-1]
		dir = filepath.Dir(target)
	}
	obs := shardFiles(shards, func(p string, _ fs.DirEntry) bool {
		return strings.HasSuffix(p, ".json") && strings.Contains(p, "/observations/")
	})
	if len(obs) == 0 {
		return stepErrorf(ExitUsage, "no observations in %s: did the record jobs run (their logs say why not)?", shards)
	}
	var arches []string
	seen := map[string]bool{}
	for _, f := range shardFiles(shards, func(_ string, d fs.DirEntry) bool { return d.Name() == "arch" }) {
		data, _ := os.ReadFile(f)
		for _, arch := range strings.Split(string(data), "\n") {
			if arch != "" && !seen[arch] {
				seen[arch] = true
				arches = append(arches, arch)
			}
		}
	}
	if len(arches) == 0 {
		return stepErrorf(ExitUsage, "no shard in %s says its arch (sysgate action baseline-pr collect writes it)", shards)
	}
	onTop, err := a.checkoutBotBranch(base, branch)
	if err != nil {
		return err
	}
	if target != "" {
		if _, err := os.Stat(target); err != nil {
			seeds := shardFiles(shards, func(_ string, d fs.DirEntry) bool { return d.Name() == "seed.yaml" })
			if len(seeds) == 0 {
				return stepErrorf(ExitUsage, "baselines: %s does not exist and no record job wrote one", target)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return stepErrorf(1, "%v", err)
			}
			if _, err := copyFile(seeds[0], target); err != nil {
				return err
			}
			fmt.Fprintf(a.c.Stdout, "baseline-pr: %s is new: starting from the file a record job wrote\n", target)
		}
	}
	prBody := []string{"report", "pr-body", "--write"}
	if a.getenv("KEEP_UNSEEN") == "true" {
		prBody = append(prBody, "--keep-unseen")
	}
	prBody = append(prBody, "--baselines", dir)
	sort.Strings(arches)
	for _, arch := range arches {
		prBody = append(prBody, "--arch", arch)
	}
	runURL := a.getenv("RUN_URL")
	if runURL != "" {
		prBody = append(prBody, "--run-url", runURL)
	}
	var body bytes.Buffer
	if a.sysgate(&body, nil, append(prBody, obs...)...) != ExitOK {
		return stepErrorf(ExitUsage, "sysgate report pr-body refused the observations (its message above names the agent or arch): nothing was written")
	}
	status, err := a.gitOutput(append([]string{"status", "--porcelain", "--"}, baselines...)...)
	if err != nil {
		return stepErrorf(1, "git status: %v", err)
	}
	if status == "" {
		fmt.Fprintf(a.c.Stdout, "baseline-pr: the baselines on %s already match what the runs did: nothing to propose\n", branch)
		a.prOutput("changed", "false")
		return nil
	}
	msg := "sysgate: update baselines"
	if runURL != "" {
		msg += " from " + runURL
	}
	if err := a.git(append([]string{"add", "--"}, baselines...)...).Run(); err != nil {
		return stepErrorf(1, "git add: %v", err)
	}
	if err := a.git("-c", "user.name="+a.getenvOr("GIT_AUTHOR_NAME", "github-actions[bot]"),
		"-c", "user.email="+a.getenvOr("GIT_AUTHOR_EMAIL", "41898282+github-actions[bot]@users.noreply.github.com"),
		"commit", "--quiet", "-m", msg).Run(); err != nil {
		return stepErrorf(1, "git commit: %v", err)
	}
	full, err := a.prBody(branch, onTop, body.String(), baselines)
	if err != nil {
		return err
	}
	if err := a.summary(full); err != nil {
		return err
	}
	return a.pushAndPropose(base, branch, full)
}

// checkoutBotBranch checks out the bot branch: on top of the remote one
// if it exists (a reviewer may have edited it), from the base if it does
// not or was merged. onTop says the update goes on an unmerged branch.
func (a *actionStep) checkoutBotBranch(base, branch string) (onTop bool, err error) {
	lsRemote := a.remoteGit("ls-remote", "--exit-code", "--heads", "origin", "refs/heads/"+branch)
	lsRemote.Stdout = nil
	switch rc := exitCode(lsRemote.Run()); rc {
	case 0:
	case 2:
		return false, a.gitStep("checkout", "--quiet", "-B", branch)
	default:
		return false, stepErrorf(1, "git ls-remote origin %s failed (exit %d): cannot tell whether the bot branch exists", branch, rc)
	}
	if err := a.remoteGit("fetch", "--quiet", "--no-tags", "origin", "+refs/heads/"+branch+":refs/remotes/origin/"+branch).Run(); err != nil {
		return false, stepErrorf(1, "git fetch origin %s: %v", branch, err)
	}
	if a.git("merge-base", "--is-ancestor", "origin/"+branch, "HEAD").Run() == nil {
		// Everything on it is in the base already: starting from the base
		// is a fast-forward of the remote branch, so nothing is lost.
		fmt.Fprintf(a.c.Stdout, "baseline-pr: %s is merged into %s: starting again from %s\n", branch, base, base)
		return false, a.gitStep("checkout", "--quiet", "-B", branch)
	}
	fmt.Fprintf(a.c.Stdout, "baseline-pr: %s exists: committing on top of it (its edits are kept)\n", branch)
	return true, a.gitStep("checkout", "--quiet", "-B", branch, "origin/"+branch)
}

func (a *actionStep) gitStep(args ...string) error {
	if err := a.git(args...).Run(); err != nil {
		return stepErrorf(1, "git %s: %v", strings.Join(args, " "), err)
	}
	return nil
}

// prBody is the pull request's body: the report's, a note when the
// update went on top of earlier changes, and what a reviewer must fix.
func (a *actionStep) prBody(branch string, onTop bool, body string, baselines []string) (string, error) {
	sha, err := a.gitOutput("rev-parse", "HEAD")
	if err != nil {
		return "", stepErrorf(1, "git rev-parse HEAD: %v", err)
	}
	prefix, _ := a.gitOutput("rev-parse", "--show-prefix")
	blob := a.getenvOr("GITHUB_SERVER_URL", "https://github.com") + "/" + a.getenvOr("GITHUB_REPOSITORY", "OWNER/REPO") + "/blob/" + sha
	var files []string
	for _, b := range baselines {
		if fi, err := os.Stat(b); err == nil && fi.IsDir() {
			files = append(files, yamlFiles(b)...)
		} else if err == nil && fi.Mode().IsRegular() {
			files = append(files, b)
		}
	}
	var findings, unformatted bytes.Buffer
	a.sysgate(&findings, &findings, append([]string{"baseline", "validate", "--strict"}, files...)...)
	a.sysgate(&unformatted, &unformatted, append([]string{"baseline", "fmt", "-l"}, files...)...)
	var b strings.Builder
	if onTop {
		fmt.Fprintf(&b, "> This run committed on top of `%s`, which already had changes: the tables below are what this run changed; the Files tab shows the whole update.\n\n", branch)
	}
	b.WriteString(body)
	b.WriteString("\n### Review before merging\n\n")
	if review := reviewList(blob+"/"+prefix, findings.String(), unformatted.String()); review != "" {
		b.WriteString("`sysgate baseline validate --strict` and `sysgate baseline fmt -l` report these. The gate (the sysgate action with `strict: true`, its default) " +
			"fails until each one is fixed: replace every placeholder reason with the real one, or drop the line and fix the agent.\n\n")
		b.WriteString(review)
	} else {
		b.WriteString("Nothing: `sysgate baseline validate --strict` and `sysgate baseline fmt -l` are clean.\n")
	}
	return b.String(), nil
}

var (
	findingAt   = regexp.MustCompile(`^([^:]+):([0-9]+): (.*)$`)
	findingFile = regexp.MustCompile(`^([^:]+\.yaml): (.*)$`)
)

// reviewList renders what validate --strict (findings) and fmt -l
// (unformatted) print as a markdown checklist, each with a link to the
// line under blob (the files' URL prefix at the commit). Entries without
// a sha256 still work, and the next record pins them: not listed.
func reviewList(blob, findings, unformatted string) string {
	var b strings.Builder
	for _, line := range strings.Split(findings, "\n") {
		if line == "" || strings.HasSuffix(line, " [unpinned]") {
			continue
		}
		if m := findingAt.FindStringSubmatch(line); m != nil {
			fmt.Fprintf(&b, "- [ ] [`%s:%s`](%s%s#L%s): %s\n", m[1], m[2], blob, m[1], m[2], strings.TrimPrefix(m[3], "warning: "))
		} else if m := findingFile.FindStringSubmatch(line); m != nil {
			fmt.Fprintf(&b, "- [ ] [`%s`](%s%s): %s\n", m[1], blob, m[1], m[2])
		} else {
			fmt.Fprintf(&b, "- [ ] %s\n", line)
		}
	}
	for _, file := range strings.Split(unformatted, "\n") {
		if file != "" {
			fmt.Fprintf(&b, "- [ ] [`%s`](%s%s): not in the canonical layout: run `sysgate baseline fmt -w %s`\n", file, blob, file, file)
		}
	}
	return b.String()
}

// pushAndPropose pushes the bot branch (a plain push: if someone pushed
// to it since it was fetched, git refuses and nothing of theirs is
// overwritten) and opens or updates its pull request with body.
func (a *actionStep) pushAndPropose(base, branch, body string) error {
	if err := a.remoteGit("push", "--quiet", "origin", "HEAD:refs/heads/"+branch).Run(); err != nil {
		return stepErrorf(1, "git push to %s was refused: the branch changed while this run updated it (someone pushed to it), or the token may not push. "+
			"Nothing was overwritten; run the update again, it starts from the branch's new tip.", branch)
	}
	a.prOutput("changed", "true")
	a.prOutput("branch", branch)
	tmp, err := a.tempDir()
	if err != nil {
		return err
	}
	bodyFile := filepath.Join(tmp, "body.md")
	if err := os.WriteFile(bodyFile, []byte(body), 0o600); err != nil {
		return stepErrorf(1, "%v", err)
	}
	number, err := a.ghOutput("pr", "list", "--head", branch, "--base", base, "--state", "open", "--json", "number", "--jq", ".[0].number // empty")
	if err != nil {
		return stepErrorf(1, "gh pr list --head %s failed: the token needs pull-requests: read", branch)
	}
	var url string
	if number != "" {
		if _, err := a.ghOutput("pr", "edit", number, "--body-file", bodyFile); err != nil {
			return stepErrorf(1, "gh pr edit %s failed: the token needs pull-requests: write", number)
		}
		url, _ = a.ghOutput("pr", "view", number, "--json", "url", "--jq", ".url")
		fmt.Fprintf(a.c.Stdout, "baseline-pr: updated %s\n", url)
	} else {
		url, err = a.ghOutput("pr", "create", "--base", base, "--head", branch, "--title", "sysgate: update baselines for "+base, "--body-file", bodyFile)
		if err != nil {
			return stepErrorf(1, "gh pr create failed: allow GitHub Actions to create pull requests (Settings → Actions → General), or pass a token that may")
		}
		fmt.Fprintf(a.c.Stdout, "baseline-pr: opened %s\n", url)
	}
	a.prOutput("pull-request", url)
	return nil
}

func (a *actionStep) ghOutput(args ...string) (string, error) {
	return a.outputOf(a.command("gh", args...))
}

// prOutput writes an output where the runner names the file: outside a
// workflow (a test, a person) the update still runs.
func (a *actionStep) prOutput(name, value string) {
	if a.getenv("GITHUB_OUTPUT") != "" {
		_ = a.output(name, value)
	}
}
