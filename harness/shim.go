package harness

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sysgate/sysgate/internal/envprobe"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

// WithoutShimResolution runs a command that is a version manager's shim
// as it is, shim and manager included, rather than the interpreter the
// manager names (see ShimResolution).
func WithoutShimResolution() Option { return func(c *runConfig) { c.keepShims = true } }

// shimWhichTimeout bounds the manager's own "which".
const shimWhichTimeout = 10 * time.Second

// resolveShim replaces a shim that starts the agent with the interpreter
// its manager names: the manager's own "which" (pyenv which python3) runs
// with the agent's environment, directory and user, outside any filter,
// so the version files, hooks and variables it reads are the ones the
// shim would have read. env is the agent's environment, as it will
// start. The agent is returned unchanged, with a note, when the manager
// names nothing usable.
func (c *runConfig) resolveShim(ctx context.Context, agent Agent) (Agent, *verdict.ShimResolution) {
	shim, ok := envprobe.FindShim(agent.Command, agent.Env, agent.Dir)
	if !ok {
		return agent, nil
	}
	res := &verdict.ShimResolution{Manager: shim.Manager, Shim: shim.Path}
	env := withEnv(agent.Env, shim.Env...)
	interp, err := c.shimWhich(ctx, shim, env, agent.Dir)
	if err != nil {
		res.Problem = err.Error()
		return agent, res
	}
	res.Interpreter = interp
	out := agent
	out.Command = append([]string{interp}, agent.Command[1:]...)
	if dir := shim.ExecPath(interp); dir != "" {
		res.PathAdded = dir
		path := envValue(env, "PATH")
		if path == "" {
			path = kernel.DefaultPath
		}
		env = withEnv(env, "PATH="+dir+string(filepath.ListSeparator)+path)
	}
	out.Env = env
	return out, res
}

// shimWhich runs the manager's which and checks what it printed: an
// absolute path of an executable file that is not a shim itself.
func (c *runConfig) shimWhich(ctx context.Context, shim envprobe.Shim, env []string, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, shimWhichTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shim.Which[0], shim.Which[1:]...)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limitedBuffer{&stdout, 4096}, &limitedBuffer{&stderr, 4096}
	if os.Geteuid() == 0 && c.setUser && c.uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: c.uid, Gid: c.gid}}
	}
	if err := cmd.Run(); err != nil {
		msg := strings.Join(strings.Fields(firstLine(stderr.String())), " ")
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New("`" + strings.Join(shim.Which, " ") + "` failed: " + msg)
	}
	interp := strings.TrimSpace(lastLine(stdout.String()))
	switch {
	case !filepath.IsAbs(interp):
		return "", errors.New("`" + strings.Join(shim.Which, " ") + "` printed no absolute path")
	case !executableFile(interp):
		return "", errors.New("`" + strings.Join(shim.Which, " ") + "` named " + interp + ", which is no executable file")
	}
	if _, again := envprobe.FindShim([]string{interp}, env, dir); again {
		return "", errors.New("`" + strings.Join(shim.Which, " ") + "` named another shim, " + interp)
	}
	return filepath.Clean(interp), nil
}

func executableFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// withEnv sets each KEY=VALUE of set in env (a copy), replacing every
// earlier value of KEY.
func withEnv(env []string, set ...string) []string {
	out := append([]string(nil), env...)
	for _, kv := range set {
		key, _, _ := strings.Cut(kv, "=")
		kept := out[:0]
		for _, have := range out {
			if !strings.HasPrefix(have, key+"=") {
				kept = append(kept, have)
			}
		}
		out = append(kept, kv)
	}
	return out
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
