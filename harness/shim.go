package harness

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// shimEnv marks a process as the harness shim. Any binary that imports
// harness (the sysgate CLI, test and Ginkgo suite binaries) turns into the
// shim in init() when it is set, so the harness can re-exec itself.
const shimEnv = "SYSGATE_SHIM"

// Fds the shim inherits besides stdio: the parent's config-then-go-ahead
// pipe and the shim's status pipe (close-on-exec, so EOF there means the
// agent was exec'd).
const (
	shimConfigFd = 3
	shimStatusFd = 4
)

// capAuditControl is CAP_AUDIT_CONTROL: whoever holds it can rewrite its
// loginuid and so leave the run's audit session.
const capAuditControl = 30

func init() {
	if os.Getenv(shimEnv) == "" {
		return
	}
	// Everything that must reach the agent is per thread (loginuid,
	// capabilities, no_new_privs, a filter loaded without TSYNC) and execve
	// keeps only the calling thread: do it all on the main thread.
	runtime.LockOSThread()
	os.Exit(runShim())
}

// runShim returns only on failure; the exit code is never seen as the
// agent's because the parent reads the error from the status pipe first.
func runShim() int {
	os.Unsetenv(shimEnv)
	unix.CloseOnExec(shimConfigFd)
	unix.CloseOnExec(shimStatusFd)
	control := os.NewFile(shimConfigFd, "sysgate-config")
	status := os.NewFile(shimStatusFd, "sysgate-status")
	fail := func(step string, err error) int {
		fmt.Fprintf(status, "error %s: %v\n", step, err)
		return 127
	}
	cfg, err := readShimConfig(control)
	if err != nil {
		return fail("read config", err)
	}
	if err := kernel.SetLoginUID(cfg.LoginUID); err != nil {
		return fail("set loginuid", err)
	}
	ses, err := kernel.SessionID()
	if err != nil {
		return fail("read session id", err)
	}
	if _, err := fmt.Fprintf(status, "ses %d\n", ses); err != nil {
		return 126
	}
	// The parent subscribes to ses before it lets the agent run, so no
	// event can arrive before someone listens for it.
	var goAhead [1]byte
	if n, _ := control.Read(goAhead[:]); n != 1 || goAhead[0] != 'g' {
		return 126 // the parent gave up; nothing to report to
	}
	if err := kernel.DropCapability(capAuditControl); err != nil {
		return fail("drop CAP_AUDIT_CONTROL", err)
	}
	if cfg.SetUser {
		if err := kernel.SetIDs(cfg.UID, cfg.GID, cfg.Groups); err != nil {
			return fail("switch user", err)
		}
	}
	if cfg.Dir != "" {
		if err := os.Chdir(cfg.Dir); err != nil {
			return fail("chdir", err)
		}
	}
	if err := kernel.SetNoNewPrivs(); err != nil {
		return fail("set no_new_privs", err)
	}
	path, err := lookPath(cfg.Path, cfg.Env)
	if err != nil {
		return fail("find agent", err)
	}
	pathp, err := unix.BytePtrFromString(path)
	if err != nil {
		return fail("find agent", err)
	}
	argv, err := cStrings(cfg.Args)
	if err != nil {
		return fail("agent arguments", err)
	}
	envp, err := cStrings(cfg.Env)
	if err != nil {
		return fail("agent environment", err)
	}
	_, err = kernel.ExecWithFilter(cfg.Program, uintptr(cfg.SeccompFlags), pathp, argv, envp)
	return fail("exec "+path, err)
}

func readShimConfig(r io.Reader) (*kernel.AgentSetup, error) {
	var size uint32
	if err := binary.Read(r, binary.LittleEndian, &size); err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	cfg := new(kernel.AgentSetup)
	if err := json.Unmarshal(buf, cfg); err != nil {
		return nil, err
	}
	if len(cfg.Program) == 0 || len(cfg.Args) == 0 {
		return nil, errors.New("malformed config")
	}
	return cfg, nil
}

func writeShimConfig(w io.Writer, cfg *kernel.AgentSetup) error {
	buf, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, uint32(len(buf))); err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// lookPath resolves file like execvp would, with the agent's PATH (not the
// shim's) and after the chdir and user switch, so access checks are the
// agent's own.
func lookPath(file string, env []string) (string, error) {
	if strings.Contains(file, "/") {
		return file, checkExecutable(file)
	}
	for _, candidate := range kernel.CandidatePaths(file, env) {
		if checkExecutable(candidate) == nil {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("%q: executable file not found in $PATH", file)
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s: is a directory", path)
	}
	return os.NewSyscallError("access "+path, unix.Access(path, unix.X_OK))
}

// cStrings returns a NULL-terminated array of C strings for execve.
func cStrings(ss []string) ([]*byte, error) {
	out := make([]*byte, len(ss)+1)
	for i, s := range ss {
		p, err := unix.BytePtrFromString(s)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
