package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/baseline"
)

// inheritFlags say what the agent starts with besides its command line:
// by default stdio only, no runner credentials, no terminal (a relayed
// one of its own with --tty).
type inheritFlags struct {
	keepFds listFlag // --keep-fd N: the caller's fd N stays fd N
	noTTY   bool     // the default since --tty exists; accepted so scripts keep working
	tty     bool
	passEnv listFlag // --pass-env NAME|GLOB
	envFile string
	// unisolated: run even without a PID namespace while runner
	// credentials are in the environment (harness.ErrUnisolated).
	unisolated bool

	extraFiles []*os.File // built from keepFds
	envSet     []string   // KEY=VALUE from envFile
}

func (f *inheritFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.keepFds, "keep-fd", "pass the caller's descriptor `N` (3 or more) to the agent as fd N; repeatable; "+
		"every other descriptor above 2 is closed (a passed socket sends without socket() or connect())")
	fs.BoolVar(&f.tty, "tty", false, "give the agent a terminal of its own that sysgate relays (as docker run -t): "+
		"for agents that need one; without it the agent has no controlling terminal, even when stdin is the caller's")
	fs.BoolVar(&f.noTTY, "no-tty", false, "no terminal for the agent: the default (kept for scripts that pass it)")
	fs.Var(&f.passEnv, "pass-env", "pass the dropped variable `NAME` (a runner credential or workflow-command file, see docs/threat-model.md) "+
		"to the agent anyway; a glob like 'GITHUB_*' works; repeatable")
	fs.BoolVar(&f.unisolated, "allow-unisolated", false, "run the agent even where it can have no PID namespace of its own (no root, no unprivileged user namespaces) "+
		"while runner credentials are in sysgate's environment, which the agent could then read from its caller's /proc/<pid>/environ")
	fs.StringVar(&f.envFile, "env-file", "", "set the agent's variables from `FILE` (KEY=VALUE lines, # comments); "+
		"these are passed even when on the dropped list")
}

// maxKeepFd bounds --keep-fd: the agent's descriptor table is at least
// that long.
const maxKeepFd = 1 << 16

// env is the agent's environment before the filter: sysgate's own, with
// the env file's variables set over it.
func (f *inheritFlags) env(own []string) []string {
	env := append([]string{}, own...)
	for _, kv := range f.envSet {
		name := kv[:strings.IndexByte(kv, '=')+1]
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, name) })
		env = append(env, kv)
	}
	return env
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// errEnvFile marks a malformed --env-file: bad input.
var errEnvFile = errors.New("env file")

// readEnvFile reads KEY=VALUE lines; blank lines and lines starting with
// # are skipped, an optional "export " prefix is allowed, and the value is
// taken as is (no quotes removed, no expansion).
func readEnvFile(path string) ([]string, error) {
	// As a baseline is read: a regular file of bounded size, so a FIFO or
	// /dev/zero named by mistake is an error, not a hang.
	data, err := baseline.ReadInput(path)
	if err != nil {
		return nil, fmt.Errorf("%w: --env-file: %v", errEnvFile, unwrapPathError(err))
	}
	return parseEnvFile(path, data)
}

// parseEnvFile reads KEY=VALUE lines (blank lines, # comments and an
// "export " prefix allowed); path names the file in errors.
func parseEnvFile(path string, data []byte) ([]string, error) {
	var out []string
	for i, raw := range strings.Split(string(data), "\n") {
		text := strings.TrimSpace(raw)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		text = strings.TrimPrefix(text, "export ")
		name, value, ok := strings.Cut(text, "=")
		if !ok || !envName.MatchString(name) {
			return nil, fmt.Errorf("%w: %s:%d: want KEY=VALUE with KEY a variable name, got %q", errEnvFile, path, i+1, raw)
		}
		if strings.IndexByte(value, 0) >= 0 {
			return nil, fmt.Errorf("%w: %s:%d: %s holds a NUL byte, which no environment can carry", errEnvFile, path, i+1, name)
		}
		out = append(out, name+"="+value)
	}
	return out, nil
}

// unwrapPathError drops the "open PATH:" of a *fs.PathError when the
// caller names the path already.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
