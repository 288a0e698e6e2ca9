package baseline

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline/risk"
)

func TestSensitivePath(t *testing.T) {
	ctx := FileContext{Workspace: "/home/runner/work/r/r", Home: "/home/runner", Tmp: "/tmp"}
	for _, tc := range []struct {
		path  string
		op    FileOp
		label string // "" = not sensitive
		level risk.Level
	}{
		{"/home/runner/.ssh/id_rsa", FileRead, "ssh key", risk.High},
		{"/home/runner/.ssh/authorized_keys", FileWrite, "ssh key", risk.High},
		{"/home/runner/.ssh/known_hosts", FileRead, "ssh known hosts", risk.Medium},
		{"/home/runner/.aws/credentials", FileRead, "cloud credentials", risk.High},
		{"/home/runner/.kube/config", FileRead, "cloud credentials", risk.High},
		{"/home/runner/.netrc", FileRead, "credentials", risk.High},
		{"/home/runner/work/r/r/.env", FileRead, "env file", risk.High},
		{"/home/runner/work/r/r/app/.env.local", FileRead, "env file", risk.High},
		{"/home/runner/work/r/r/.env", FileWrite, "env file", risk.Medium},
		{"/home/runner/work/r/r/.envrc", FileRead, "", ""},
		{"/etc/shadow", FileRead, "password hashes", risk.High},
		{"/etc/sudoers.d/runner", FileRead, "sudo rules", risk.Medium},
		{"/etc/sudoers.d/runner", FileWrite, "sudo rules", risk.High},
		{"/proc/1/environ", FileRead, "process environment", risk.High},
		{"/proc/self/environ", FileRead, "", ""},
		{"/proc/thread-self/mem", FileWrite, "", ""},
		{"/proc/77/mem", FileWrite, "process memory", risk.High},
		{"/home/runner/work/_temp/_runner_file_commands/set_env_1", FileWrite, "runner commands", risk.High},
		{"/home/runner/work/_temp/_runner_file_commands/set_env_1", FileRead, "", ""},
		{"/home/runner/work/_actions/actions/checkout/v4/dist/index.js", FileWrite, "runner actions", risk.High},
		{"/home/runner/work/_actions/actions/checkout/v4/dist/index.js", FileRead, "", ""},
		{"/opt/hostedtoolcache/Python/3.12.1/x64/bin/python", FileWrite, "runner tool cache", risk.High},
		{"/home/runner/runners/2.320.0/.credentials", FileRead, "runner credentials", risk.High},
		{"/home/runner/.bashrc", FileWrite, "shell start-up", risk.High},
		{"/home/runner/.bashrc", FileRead, "", ""},
		{"/home/runner/work/r/r/.git/hooks/pre-commit", FileWrite, "git hook", risk.High},
		{"/home/runner/work/r/r/.git/config", FileWrite, "git config", risk.High},
		{"/home/runner/work/r/r/.git/config", FileRead, "", ""},
		{"/home/runner/work/r/r/.mcp.json", FileWrite, "agent config", risk.High},
		{"/home/runner/.claude/settings.json", FileWrite, "agent config", risk.High},
		{"/home/runner/.claude/.credentials.json", FileRead, "agent credentials", risk.High},
		{"/etc/ld.so.preload", FileWrite, "preload", risk.High},
		{"/etc/ld.so.preload", FileRead, "", ""},
		{"/etc/cron.d/job", FileWrite, "cron", risk.High},
		{"/etc/systemd/system/x.service", FileWrite, "systemd unit", risk.High},
		{"/home/runner/.config/systemd/user/x.service", FileDelete, "systemd unit", risk.High},
		{"/usr/lib/python3.11/os.py", FileRead, "", ""},
		{"{home}/.ssh/id_ed25519", FileRead, "ssh key", risk.High},
		// By name and shape wherever they lie (issue 43, item 10).
		{"/home/runner/work/r/r/deploy/id_rsa", FileRead, "ssh key", risk.High},
		{"/tmp/x/.ssh/id_ed25519", FileRead, "ssh key", risk.High},
		{"/tmp/keys/id_ecdsa", FileRead, "ssh key", risk.High},
		{"/home/runner/work/r/r/id_rsa.pub", FileRead, "", ""},
		{"/home/runner/work/r/r/.aws/credentials", FileRead, "cloud credentials", risk.High},
		{"/tmp/ci/.docker/config.json", FileRead, "registry credentials", risk.High},
		{"/home/runner/work/r/r/.npmrc", FileRead, "registry credentials", risk.High},
		{"/srv/app/.netrc", FileRead, "credentials", risk.High},
		{"/tmp/x/.git-credentials", FileRead, "credentials", risk.High},
		{"/home/runner/work/r/r/.env.production", FileRead, "env file", risk.High},
		{"/tmp/x/.env", FileRead, "env file", risk.High},
		{"/home/runner/work/r/r/tls/server.key", FileRead, "private key", risk.High},
		{"/etc/ssl/private/ssl-cert-snakeoil.key", FileRead, "private key", risk.High},
		{"/tmp/x/privkey.pem", FileRead, "private key", risk.High},
		{"/tmp/x/server-key.pem", FileRead, "private key", risk.High},
		{"/usr/lib/python3/dist-packages/certifi/cacert.pem", FileRead, "", ""},
		{"/etc/ssl/certs/ISRG_Root_X1.pem", FileRead, "", ""},
		{"/tmp/x/.kube/config", FileRead, "cloud credentials", risk.High},
		{"/home/runner/work/r/r/kubeconfig", FileRead, "cloud credentials", risk.High},
		{"/home/runner/work/r/r/ci.kubeconfig", FileRead, "cloud credentials", risk.High},
		{"/home/runner/work/r/r/kubeconfig.yaml", FileRead, "cloud credentials", risk.High},
		{"/tmp/cfg/.config/gcloud/access_tokens.db", FileRead, "cloud credentials", risk.High},
		{"/root/.azure/msal_token_cache.json", FileRead, "cloud credentials", risk.High},
		{"/run/secrets/token", FileRead, "mounted secrets", risk.High},
		{"/home/runner/runners/2.320.0/_diag/Worker_20261207.log", FileRead, "runner logs", risk.High},
		{"/actions-runner/.runner", FileRead, "runner credentials", risk.High},
		{"/actions-runner/.credentials_rsaparams", FileRead, "runner credentials", risk.High},
	} {
		s, ok := SensitivePath(ctx, tc.path, tc.op)
		if ok != (tc.label != "") || s.Label != tc.label || s.Level != tc.level {
			t.Errorf("SensitivePath(%q, %s) = %+v %v, want %q %q", tc.path, tc.op, s, ok, tc.label, tc.level)
		}
	}
	// Without a home, {home} rows match nothing rather than everything.
	if s, ok := SensitivePath(FileContext{}, "/.bashrc", FileWrite); ok {
		t.Errorf("empty home matched %+v", s)
	}
}

// TestSensitiveTable: every row is a valid glob with accesses, a level
// and a reason, so the table cannot rot into rows that never match.
func TestSensitiveTable(t *testing.T) {
	for _, s := range SensitivePaths() {
		if p := globProblem(s.Pattern); p != "" {
			t.Errorf("%s: %s", s.Pattern, p)
		}
		if len(s.Ops) == 0 || s.Label == "" || s.Reason == "" || (s.Level != risk.High && s.Level != risk.Medium) {
			t.Errorf("incomplete row %+v", s)
		}
		for _, pr := range probes(s.Pattern) {
			if _, ok := SensitivePath(FileContext{}, pr, s.Ops[0]); !ok {
				t.Errorf("row %s does not match its own probe %s", s.Pattern, pr)
			}
		}
	}
}

// TestSensitiveOverlap is the rule for two globs: either matches a probe
// of the other.
func TestSensitiveOverlap(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		op      FileOp
		want    bool
	}{
		{"{home}/**", FileRead, true},
		{"{home}/*", FileRead, true},              // {home}/.netrc
		{"{home}/.cache/**", FileRead, false},     // nothing sensitive below
		{"{home}/.ssh/*", FileRead, true},         // a glob inside a row
		{"{home}/.s*/**", FileRead, true},         // matches .ssh's probe
		{"{runtime}/**", FileRead, false},         // "/**/" rows are probed in checkouts and homes
		{"{tmp}/**", FileWrite, true},             // {tmp}/.env: /tmp is shared (issue 43, item 10)
		{"{tmp}/**", FileRead, true},              // {tmp}/id_rsa
		{"{tmp}/tmp????????/**", FileRead, false}, // what record writes for the run's own directory
		{"{workspace}/**", FileRead, true},        // .env
		{"{workspace}/src/**", FileRead, false},   // "/**/" rows are probed at the top only (probeRoots)
		{"{workspace}/src/*.py", FileRead, false}, // no .env matches *.py
		{"{workspace}/.git/**", FileRead, false},
		{"{workspace}/.git/**", FileWrite, true},
		{"/etc/*", FileRead, true}, // /etc/shadow
		{"/etc/ssl/certs/*", FileRead, false},
		{"/**", FileWrite, true},
		{"/proc/self/environ", FileRead, false},
		{"/proc/*/environ", FileRead, true},
	} {
		got := len(sensitiveOverlap(FileEntry{Pattern: tc.pattern, Op: tc.op})) > 0
		if got != tc.want {
			t.Errorf("overlap(%s: %s) = %v, want %v: %+v", tc.pattern, tc.op, got, tc.want, sensitiveOverlap(FileEntry{Pattern: tc.pattern, Op: tc.op}))
		}
	}
}

// TestSensitiveFileProblems: a glob written with a literal home is only
// seen to cover the home's keys with the run's values.
func TestSensitiveFileProblems(t *testing.T) {
	p := loadFilesSection(t, "files:\n  read:\n    - /home/runner/**\n    - /home/**\n    - /etc/ssl/**\n    - path: /srv/**\n      reason: serves files\n  write:\n    - /home/runner/work/r/r/**\n")
	ctx := FileContext{Workspace: "/home/runner/work/r/r", Home: "/home/runner", Tmp: "/tmp"}
	var got []string
	for _, e := range p.SensitiveFileProblems(ctx) {
		got = append(got, e.Error())
	}
	if len(got) != 3 || !strings.Contains(got[1], "/home/runner/**: read covers sensitive paths: /**/.env (env file, high), /**/.ssh/** (ssh key, high)") ||
		!strings.Contains(got[0], "/home/**: read covers") || !strings.Contains(got[2], "/home/runner/work/r/r/**: write covers") {
		t.Errorf("problems:\n%s", strings.Join(got, "\n"))
	}
	if got := p.SensitiveFileProblems(FileContext{}); len(got) != 0 {
		t.Errorf("without values: %v", got)
	}
}

// TestSensitiveWorkspaceIsHome: an agent run in its home writes its
// files as {workspace}/..., and the keys there are still keys.
func TestSensitiveWorkspaceIsHome(t *testing.T) {
	ctx := FileContext{Workspace: "/home/u", Home: "/home/u", Tmp: "/tmp"}
	if s, ok := SensitivePath(ctx, "/home/u/.ssh/id_rsa", FileRead); !ok || s.Label != "ssh key" {
		t.Errorf("got %+v %v", s, ok)
	}
	entries := GeneraliseFiles(ctx, []ObservedFile{{Path: "/home/u/.ssh/id_rsa", Op: FileRead}, {Path: "/home/u/a", Op: FileRead}})
	if got := formatEntries(entries); !strings.Contains(got, "path: \"{workspace}/.ssh/id_rsa\"\n      reason: \"unreviewed") {
		t.Errorf("got:\n%s", got)
	}
}
