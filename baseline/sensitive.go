package baseline

import (
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline/risk"
)

// SensitiveEntry is one row of the sensitive-path table: where secrets,
// or code that something else runs later, live. Sensitivity depends on
// the access: reading .git/config is ordinary, writing it is not, so a
// row lists the accesses it is about.
type SensitiveEntry struct {
	Pattern string // a files glob: absolute, {home}, or "/**/" for anywhere
	Ops     []FileOp
	Level   risk.Level
	Label   string // short, for reports: "ssh key"
	Reason  string // why it matters, one line
}

var (
	rw        = []FileOp{FileRead, FileWrite, FileDelete}
	readOnly  = []FileOp{FileRead}
	writeOnly = []FileOp{FileWrite, FileDelete}
)

// sensitivePaths is the table; the first row that matches an access
// decides, so a narrower row (known_hosts) comes before a wider one
// (.ssh/**).
//
// A credential is matched by its name and shape wherever it lies
// ("/**/"): a key copied into the workspace, a kubeconfig under /tmp, a
// .npmrc in a checkout are as good to a thief as the ones in the home.
// Rows about what a later shell or tool runs (.bashrc, agent config)
// stay under {home}, where those programs look.
//
// The runner rows use "/**/" because the layout moves: hosted runners
// keep the job's files under /home/runner/work (_temp, _actions, _tool),
// self-hosted ones under the runner's install directory, and the
// credentials (.credentials, .credentials_rsaparams, .runner) beside the
// runner binary.
var sensitivePaths = []SensitiveEntry{
	// First: reports list a glob's rows in table order, and .env is
	// what a glob over a checkout most often holds.
	{"/**/.env", readOnly, risk.High, "env file", "application secrets"},
	{"/**/.env.*", readOnly, risk.High, "env file", "application secrets"},
	{"/**/.env", writeOnly, risk.Medium, "env file", "settings an application loads at start"},
	{"/**/.env.*", writeOnly, risk.Medium, "env file", "settings an application loads at start"},
	{"/**/.ssh/known_hosts", rw, risk.Medium, "ssh known hosts", "which hosts ssh trusts: a write lets a spoofed host in"},
	{"/**/.ssh/config", rw, risk.Medium, "ssh config", "names hosts, users and keys; a write can run a ProxyCommand"},
	{"/**/.ssh/**", rw, risk.High, "ssh key", "private keys and authorized_keys: read to log in elsewhere, written to let someone in"},
	{"/**/id_rsa", rw, risk.High, "ssh key", "a private key, wherever it was left"},
	{"/**/id_dsa", rw, risk.High, "ssh key", "a private key, wherever it was left"},
	{"/**/id_ecdsa", rw, risk.High, "ssh key", "a private key, wherever it was left"},
	{"/**/id_ecdsa_sk", rw, risk.High, "ssh key", "a private key, wherever it was left"},
	{"/**/id_ed25519", rw, risk.High, "ssh key", "a private key, wherever it was left"},
	{"/**/id_ed25519_sk", rw, risk.High, "ssh key", "a private key, wherever it was left"},
	{"/**/*.key", rw, risk.High, "private key", "a TLS or signing key"},
	// "*.pem" alone would take in every CA bundle (certifi's cacert.pem,
	// /etc/ssl/certs): certificates are public; keys are named as keys.
	{"/**/*key*.pem", rw, risk.High, "private key", "a TLS or signing key"},
	{"/**/.gnupg/**", rw, risk.High, "gpg key", "private signing and decryption keys"},
	{"/**/.aws/**", rw, risk.High, "cloud credentials", "AWS access keys"},
	{"/**/.config/gcloud/**", rw, risk.High, "cloud credentials", "Google Cloud tokens"},
	{"/**/.azure/**", rw, risk.High, "cloud credentials", "Azure tokens"},
	{"/**/.kube/config", rw, risk.High, "cloud credentials", "Kubernetes cluster credentials"},
	{"/**/kubeconfig", rw, risk.High, "cloud credentials", "Kubernetes cluster credentials"},
	{"/**/kubeconfig.*", rw, risk.High, "cloud credentials", "Kubernetes cluster credentials"},
	{"/**/*.kubeconfig", rw, risk.High, "cloud credentials", "Kubernetes cluster credentials"},
	{"/**/.netrc", rw, risk.High, "credentials", "passwords for hosts (curl, git, ftp)"},
	{"/**/.git-credentials", rw, risk.High, "credentials", "git's stored passwords and tokens"},
	{"/**/.docker/config.json", rw, risk.High, "registry credentials", "container registry tokens"},
	{"/**/.config/gh/**", rw, risk.High, "github token", "the GitHub CLI's token"},
	{"/**/.npmrc", rw, risk.High, "registry credentials", "npm publish tokens"},
	{"/**/.pypirc", rw, risk.High, "registry credentials", "PyPI upload tokens"},
	{"/**/.claude/.credentials.json", rw, risk.High, "agent credentials", "an agent's API token"},
	{"/etc/shadow", rw, risk.High, "password hashes", "the system's password hashes"},
	{"/etc/gshadow", rw, risk.High, "password hashes", "the system's group password hashes"},
	{"/etc/sudoers", writeOnly, risk.High, "sudo rules", "who may become root"},
	{"/etc/sudoers.d/**", writeOnly, risk.High, "sudo rules", "who may become root"},
	{"/etc/sudoers", readOnly, risk.Medium, "sudo rules", "who may become root, and without a password"},
	{"/etc/sudoers.d/**", readOnly, risk.Medium, "sudo rules", "who may become root, and without a password"},
	{"/etc/passwd", writeOnly, risk.High, "accounts", "adds or changes users"},
	{"/etc/group", writeOnly, risk.High, "accounts", "adds users to groups"},
	// /proc/self is the reader's own: these rows are about other
	// processes (otherProcess).
	{"/proc/*/environ", readOnly, risk.High, "process environment", "another process's environment: tokens passed to the job"},
	{"/proc/*/task/*/environ", readOnly, risk.High, "process environment", "another process's environment: tokens passed to the job"},
	{"/proc/*/mem", rw, risk.High, "process memory", "another process's memory: its secrets, or code injected into it"},
	{"/proc/*/task/*/mem", rw, risk.High, "process memory", "another process's memory: its secrets, or code injected into it"},
	{"/run/secrets/**", rw, risk.High, "mounted secrets", "secrets mounted into the container"},
	{"/**/_temp/_runner_file_commands/**", writeOnly, risk.High, "runner commands", "GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT: set the environment and outputs of later steps"},
	{"/**/_actions/**", writeOnly, risk.High, "runner actions", "the code of the job's other actions"},
	{"/**/_tool/**", writeOnly, risk.High, "runner tool cache", "tools that later steps run"},
	{"/opt/hostedtoolcache/**", writeOnly, risk.High, "runner tool cache", "tools that later steps run"},
	{"/**/.credentials*", rw, risk.High, "runner credentials", "the runner's OAuth credentials"},
	{"/**/.runner", rw, risk.High, "runner credentials", "the runner's registration"},
	{"/**/_diag/**", rw, risk.High, "runner logs", "the runner's own logs: job messages, with the URLs and tokens the runner was handed"},
	{"{home}/.bashrc", writeOnly, risk.High, "shell start-up", "runs in every later shell"},
	{"{home}/.bash_profile", writeOnly, risk.High, "shell start-up", "runs in every later login shell"},
	{"{home}/.bash_login", writeOnly, risk.High, "shell start-up", "runs in every later login shell"},
	{"{home}/.profile", writeOnly, risk.High, "shell start-up", "runs in every later login shell"},
	{"{home}/.zshrc", writeOnly, risk.High, "shell start-up", "runs in every later shell"},
	{"{home}/.zshenv", writeOnly, risk.High, "shell start-up", "runs in every later shell"},
	{"{home}/.zprofile", writeOnly, risk.High, "shell start-up", "runs in every later login shell"},
	{"/etc/profile", writeOnly, risk.High, "shell start-up", "runs in every login shell of every user"},
	{"/etc/profile.d/**", writeOnly, risk.High, "shell start-up", "runs in every login shell of every user"},
	{"/etc/bash.bashrc", writeOnly, risk.High, "shell start-up", "runs in every shell of every user"},
	{"/etc/environment", writeOnly, risk.High, "shell start-up", "the environment of every login"},
	{"/**/.git/hooks/**", writeOnly, risk.High, "git hook", "runs on the next git command"},
	{"/**/.git/config", writeOnly, risk.High, "git config", "can make git run a command (core.fsmonitor, core.pager, aliases)"},
	{"/**/.mcp.json", writeOnly, risk.High, "agent config", "adds MCP servers that an agent starts"},
	{"{home}/.claude.json", writeOnly, risk.High, "agent config", "an agent's MCP servers and permissions"},
	{"{home}/.claude/**", writeOnly, risk.High, "agent config", "an agent's hooks, MCP servers and permissions"},
	{"{home}/.cursor/**", writeOnly, risk.High, "agent config", "an agent's MCP servers and rules"},
	{"{home}/.codex/**", writeOnly, risk.High, "agent config", "an agent's configuration and credentials"},
	{"{home}/.codex/auth.json", readOnly, risk.High, "agent credentials", "an agent's API token"},
	{"{home}/.gemini/**", writeOnly, risk.High, "agent config", "an agent's configuration and MCP servers"},
	{"{home}/.config/github-copilot/**", rw, risk.High, "agent credentials", "the Copilot token"},
	{"/etc/ld.so.preload", writeOnly, risk.High, "preload", "a library loaded into every process"},
	{"/etc/crontab", writeOnly, risk.High, "cron", "runs commands later, outside the run"},
	{"/etc/cron.*/**", writeOnly, risk.High, "cron", "runs commands later, outside the run"},
	{"/var/spool/cron/**", writeOnly, risk.High, "cron", "runs commands later, outside the run"},
	{"/etc/systemd/**", writeOnly, risk.High, "systemd unit", "starts services outside the run"},
	{"/lib/systemd/system/**", writeOnly, risk.High, "systemd unit", "starts services outside the run"},
	{"{home}/.config/systemd/**", writeOnly, risk.High, "systemd unit", "starts user services outside the run"},
}

// SensitivePaths returns a copy of the table, for documentation and
// reports.
func SensitivePaths() []SensitiveEntry { return slices.Clone(sensitivePaths) }

// SensitivePath says whether an access of path (absolute, or in the
// symbolic form Abstract writes) touches a sensitive location, and which.
// /proc/self and /proc/thread-self are the caller's own and match no
// /proc row: a run's pids are written that way by GeneraliseFiles, while
// another process's pid stays a number. The caveat: the path is the name
// the kernel was given, so an agent that names one of its own processes by
// pid is reported as if it were another.
func SensitivePath(ctx FileContext, path string, op FileOp) (SensitiveEntry, bool) {
	names := [][]string{}
	for _, p := range ctx.abstractions(path) {
		names = append(names, splitPath(p))
	}
	for _, s := range sensitivePaths {
		if !slices.Contains(s.Ops, op) {
			continue
		}
		row := compileGlob(s.Pattern)
		for _, name := range names {
			if !ownProc(s, name) && row.match(name) {
				return s, true
			}
		}
	}
	return SensitiveEntry{}, false
}

func ownProc(s SensitiveEntry, name []string) bool {
	return strings.HasPrefix(s.Pattern, "/proc/*/") && len(name) > 2 && name[1] == "proc" && (name[2] == "self" || name[2] == "thread-self")
}

// sensitiveHit is a table row an entry overlaps; names: the entry is a
// literal path inside the row, not a glob over it.
type sensitiveHit struct {
	entry SensitiveEntry
	names bool
}

// probeName stands for "any name" in a probe path.
const probeName = "sysgate-probe"

// probeRoots are where a row written "/**/x" is probed: such files matter
// at the top of a checkout, a home and {tmp} (shared with every other
// process), and a glob over {runtime} is not taken to cover them. Deeper
// ones are not probed either:
// "{workspace}/out/**: write" would otherwise need a reason for a
// ".git/hooks" that out/ does not have. SensitivePath still flags each
// such access.
func probeRoots(ctx FileContext, repo string) []string {
	roots := []string{""}
	for _, ph := range []string{phWorkspace, phRepo, phHome, phTmp} {
		roots = append(roots, ctx.values(ph, repo)...)
	}
	return roots
}

// symbolicOverlap is the context of the check at parse time: every
// placeholder, {repo} included, stands for itself.
var symbolicOverlap = FileContext{Workspace: phWorkspace, Home: phHome, Tmp: phTmp, Runtime: []string{phRuntime}, repo: phRepo}

// sensitiveOverlap lists the rows an entry names or covers, in the
// symbolic form: two globs overlap when either matches a probe of the
// other. A probe is a path the glob matches, made by writing each "*"
// and "?" as a fixed name and each "**" as one element (a leading "/**"
// as each of probeRoots). So "{home}/**" covers "{home}/.ssh/**" (it
// matches "{home}/.ssh/sysgate-probe"), and "/etc/cron.d/job" names
// "/etc/cron.*/**". A glob written with a literal home ("/home/runner/**")
// is not compared with {home} rows here; SensitivePath still flags each
// access through it.
func sensitiveOverlap(e FileEntry) []sensitiveHit { return sensitiveOverlapIn(symbolicOverlap, e) }

// sensitiveOverlapIn is sensitiveOverlap with the entry and the rows
// expanded in ctx: with a run's values, "/home/runner/**" covers
// "{home}/.ssh/**" when the home is /home/runner.
func sensitiveOverlapIn(ctx FileContext, e FileEntry) []sensitiveHit {
	roots := probeRoots(ctx, e.repo)
	var out []sensitiveHit
	for _, mine := range expand(ctx, e.Pattern, e.repo) {
		g := compileGlob(mine)
		mineProbes := probesUnder(mine, roots)
		for _, s := range sensitivePaths {
			if !slices.Contains(s.Ops, e.Op) || containsRow(out, s) {
				continue
			}
			for _, rowPattern := range expand(ctx, s.Pattern, e.repo) {
				if hit, names := overlaps(g, mineProbes, s, rowPattern, roots); hit {
					out = append(out, sensitiveHit{entry: s, names: names})
					break
				}
			}
		}
	}
	return out
}

// overlaps: the row matches a probe of the entry (names: the entry is a
// literal path), or the entry matches a probe of the row.
func overlaps(g glob, mineProbes []string, s SensitiveEntry, rowPattern string, roots []string) (hit, names bool) {
	row := compileGlob(rowPattern)
	for _, pr := range mineProbes {
		if row.match(splitPath(pr)) && !ownProc(s, splitPath(pr)) {
			return true, g.literal()
		}
	}
	for _, pr := range probesUnder(rowPattern, roots) {
		if g.match(splitPath(pr)) {
			return true, false
		}
	}
	return false, false
}

func containsRow(hits []sensitiveHit, s SensitiveEntry) bool {
	for _, h := range hits {
		if h.entry.Pattern == s.Pattern && h.entry.Level == s.Level {
			return true
		}
	}
	return false
}

// probes are paths pattern matches, in the symbolic form (see
// sensitiveOverlap).
func probes(pattern string) []string { return probesUnder(pattern, probeRoots(symbolicOverlap, "")) }

// probesUnder are paths pattern matches, a leading "/**" taken as each
// of roots.
func probesUnder(pattern string, roots []string) []string {
	rest := pattern
	if strings.HasPrefix(pattern, "/**/") {
		rest = pattern[3:]
	} else {
		roots = []string{""}
	}
	elems := strings.Split(rest, "/")
	for i, el := range elems {
		switch {
		case el == "**":
			elems[i] = probeName
		case strings.ContainsAny(el, "*?"):
			el = strings.ReplaceAll(el, "*", probeName)
			elems[i] = strings.ReplaceAll(el, "?", "x")
		}
	}
	tail := strings.Join(elems, "/")
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		out = append(out, r+tail)
	}
	return out
}
