//go:build linux && cgo

package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// As the test binary's first argument: bindProbeArg makes it the agent
// that reports what it sees of files (bindProbe); unprivilegedBindsArg
// makes it an unprivileged caller of Spawn (unprivilegedBinds).
const (
	bindProbeArg         = "kernel-bind-probe"
	unprivilegedBindsArg = "kernel-bind-unprivileged"
	rootProbeArg         = "kernel-root-probe"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case bindProbeArg:
			os.Exit(bindProbe(os.Args[2:]))
		case unprivilegedBindsArg:
			os.Exit(unprivilegedBinds(os.Args[2:]))
		case rootProbeArg:
			os.Exit(rootProbe(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// bindProbe prints, for each path, whether it opens for writing (the
// errno's name, or "ok"; nothing is written either way) and then its
// content.
func bindProbe(paths []string) int {
	for _, path := range paths {
		werr := "ok"
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
		} else {
			werr = unix.ErrnoName(err.(unix.Errno))
		}
		content, err := os.ReadFile(path)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Printf("%s: write %s\n%s", path, werr, content)
	}
	return 0
}

// probeOutput is what bindProbe prints when every path reads content
// and fails to open for writing with EROFS.
func probeOutput(content string, paths ...string) string {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "%s: write EROFS\n%s", p, content)
	}
	return b.String()
}

// probeSetup starts exe (this test binary) as bindProbe of paths, with
// binds, without an audit session (no CAP_AUDIT_CONTROL needed).
func probeSetup(exe string, binds []BindFile, paths ...string) AgentSetup {
	return AgentSetup{Path: exe, Args: append([]string{"probe", bindProbeArg}, paths...),
		Program: allowAll, NoAuditSession: true, BindFiles: binds}
}

// unprivilegedBinds binds args[1] over args[2] in a run of its own user
// namespace (the unprivileged fence), hiding args[0] unless it is empty,
// and probes args[2:]: it prints the
// probe's output, then "error: ..." (exit 1) if the launch failed, or
// "unavailable: ..." (exit 3) without unprivileged user namespaces.
func unprivilegedBinds(args []string) int {
	if err := ProbeUserNamespace(); err != nil {
		fmt.Println("unavailable:", err)
		return 3
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	setup := probeSetup(exe, []BindFile{{Source: args[1], Target: args[2]}}, args[2:]...)
	if args[0] != "" {
		setup.HideDirs = []string{args[0]}
	}
	setup.PidNamespace, setup.UserNamespace = true, true
	setup.MapUID, setup.MapGID = uint32(os.Geteuid()), uint32(os.Getegid())
	out, err := spawnOutput(setup)
	fmt.Print(out)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

// spawnOutput runs setup's agent to its end with Spawn (stdin /dev/null,
// stdout and stderr one pipe) and returns what it printed; err is the
// child's error record, or the agent's failure.
func spawnOutput(setup AgentSetup) (string, error) {
	controlR, controlW, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer controlW.Close()
	statusParent, statusChild, err := StatusSocket()
	if err != nil {
		controlR.Close()
		return "", err
	}
	defer unix.Close(statusParent)
	outR, outW, err := os.Pipe()
	if err != nil {
		controlR.Close()
		unix.Close(statusChild)
		return "", err
	}
	defer outR.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		controlR.Close()
		unix.Close(statusChild)
		outW.Close()
		return "", err
	}
	cfg := &SpawnConfig{AgentSetup: setup, Stdio: [3]int{int(devnull.Fd()), int(outW.Fd()), int(outW.Fd())},
		Control: int(controlR.Fd()), ControlPeer: int(controlW.Fd()), Status: statusChild}
	done := make(chan spawned, 1)
	var free func()
	go func() {
		pid, pidfd, f, err := Spawn(cfg)
		free = f
		// The child has exec'd or exited, or (init) holds copies of its
		// own: the pipes read EOF once the run's copies are gone.
		controlR.Close()
		unix.Close(statusChild)
		outW.Close()
		devnull.Close()
		done <- spawned{pid, pidfd, err}
	}()
	output := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(outR)
		output <- b
	}()

	var stepErr error
	st, lfd, err := ReadSpawnStatus(statusParent)
	if err == nil && st.Kind == StatusSession {
		_, err = controlW.Write([]byte{'g'})
	} else if err == nil {
		stepErr = st.Err()
	}
	closeFd(lfd)
	controlW.Close()
	s := <-done
	if s.err != nil {
		return "", s.err
	}
	defer unix.Close(s.pidfd)
	agentStatus := unix.WaitStatus(0)
	pidns := setup.PidNamespace
	for err == nil && stepErr == nil {
		var fd int
		st, fd, err = ReadSpawnStatus(statusParent)
		closeFd(fd) // the agent's pidfd (StatusAgent)
		switch {
		case err != nil:
		case st.Kind == StatusError:
			stepErr = st.Err()
		case st.Kind == StatusExit:
			agentStatus = unix.WaitStatus(st.Errno)
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil // exec'd (status socket closed on exec), or init is gone
	}
	var ws unix.WaitStatus
	if _, werr := unix.Wait4(s.pid, &ws, 0, nil); werr != nil {
		err = errors.Join(err, os.NewSyscallError("wait4", werr))
	}
	if free != nil {
		free()
	}
	if !pidns {
		agentStatus = ws
	}
	out := string(<-output)
	switch {
	case stepErr != nil:
		return out, stepErr
	case err != nil:
		return out, err
	case !agentStatus.Exited() || agentStatus.ExitStatus() != 0:
		return out, fmt.Errorf("agent ended with %v", agentStatus)
	}
	return out, nil
}

func closeFd(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

// bindCase is a file bound over a target (with hide among HideDirs
// unless empty): the run should see content at each probed path, and the
// host keep what hostFiles hold.
type bindCase struct {
	name      string
	bind      BindFile
	hide      string
	content   string
	probed    []string
	hostFiles map[string]string
}

// bindCases are a plain file over /etc/resolv.conf (the network part's
// use); a file over a symlink, which mount(2) follows: both the link and
// the file it names show the source; and a source in a directory of
// HideDirs, which is bound before the directory is covered. Files are in
// dir, which anyone may enter, and the sources are owner's: were the
// bind writable, the agent (owner, or root) could write them.
func bindCases(t *testing.T, dir string, owner int) []bindCase {
	t.Helper()
	source := testutil.WriteFile(t, dir, "resolv.conf", fmt.Sprintf("nameserver 127.0.0.53 # the run's, %s\n", dir))
	real := testutil.WriteFile(t, dir, "real", "the host's\n")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	hidden := testutil.WriteFile(t, dir, "hidden/resolv.conf", "nameserver 127.0.0.54 # out of sight\n")
	for _, f := range []string{source, hidden} {
		if err := os.Chown(f, owner, owner); err != nil {
			t.Fatal(err)
		}
	}
	host, err := os.ReadFile("/etc/resolv.conf")
	if err != nil {
		t.Fatalf("the host's resolver configuration: %v", err)
	}
	want, _ := os.ReadFile(source)
	return []bindCase{
		{name: "file", bind: BindFile{Source: source, Target: "/etc/resolv.conf"}, content: string(want),
			probed: []string{"/etc/resolv.conf"}, hostFiles: map[string]string{"/etc/resolv.conf": string(host)}},
		{name: "symlink", bind: BindFile{Source: source, Target: link}, content: string(want),
			probed: []string{link, real}, hostFiles: map[string]string{link: "the host's\n", real: "the host's\n"}},
		{name: "hidden source", bind: BindFile{Source: hidden, Target: "/etc/resolv.conf"}, hide: filepath.Dir(hidden),
			content: "nameserver 127.0.0.54 # out of sight\n", probed: []string{"/etc/resolv.conf"},
			hostFiles: map[string]string{"/etc/resolv.conf": string(host), hidden: "nameserver 127.0.0.54 # out of sight\n"}},
	}
}

// checkHostFiles fails unless each file still reads as before the run
// in this mount namespace: the bind stayed in the agent's.
func checkHostFiles(t *testing.T, c bindCase) {
	t.Helper()
	for path, want := range c.hostFiles {
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s outside the run reads %q, %v after it; want %q as before", path, got, err, want)
		}
	}
}

// As root, with and without the run's PID namespace: the agent reads
// the source at the target and cannot open it for writing (EROFS, though
// root passes every permission check), and the host's file is unchanged.
func TestSpawnBindFiles(t *testing.T) {
	testutil.RequireRoot(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, pidns := range []bool{false, true} {
		for _, c := range bindCases(t, testutil.WorldDir(t, "kernel-bind"), 0) {
			t.Run(fmt.Sprintf("%s/pidns=%v", c.name, pidns), func(t *testing.T) {
				setup := probeSetup(exe, []BindFile{c.bind}, c.probed...)
				setup.PidNamespace = pidns
				if c.hide != "" {
					setup.HideDirs = []string{c.hide}
				}
				out, err := spawnOutput(setup)
				if err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if want := probeOutput(c.content, c.probed...); out != want {
					t.Errorf("the agent saw\n%s\nwant\n%s", out, want)
				}
				checkHostFiles(t, c)
			})
		}
	}
}

// The same for an unprivileged caller (uid 65534, a copy of this test
// binary), whose run's init has a user namespace of its own.
func TestSpawnBindFilesUnprivileged(t *testing.T) {
	testutil.RequireRoot(t) // to become uid 65534
	dir := testutil.WorldDir(t, "kernel-bind")
	exe := testutil.SharedTestBinary(t, dir, "kernel.test")
	for _, c := range bindCases(t, dir, 65534) {
		t.Run(c.name, func(t *testing.T) {
			out, code := runAsNobody(t, dir, exe, append([]string{c.hide, c.bind.Source, c.bind.Target}, c.probed[1:]...)...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if want := probeOutput(c.content, c.probed...); out != want {
				t.Errorf("the agent saw\n%s\nwant\n%s", out, want)
			}
			checkHostFiles(t, c)
		})
	}
	t.Run("missing target", func(t *testing.T) {
		target := filepath.Join(dir, "no-such-dir", "resolv.conf")
		out, code := runAsNobody(t, dir, exe, "", filepath.Join(dir, "resolv.conf"), target)
		want := fmt.Sprintf("error: bind %s read-only over %s in the agent's mount namespace: open the target: no such file or directory\n",
			filepath.Join(dir, "resolv.conf"), target)
		if code != 1 || out != want {
			t.Errorf("exit %d:\n%s\nwant exit 1:\n%s", code, out, want)
		}
	})
}

// runAsNobody runs exe as unprivilegedBinds with args, as uid and gid
// 65534 without supplementary groups, and returns its output and exit
// code; it skips (under CI fails) where unprivileged user namespaces are
// off.
func runAsNobody(t *testing.T, dir, exe string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(exe, append([]string{unprivilegedBindsArg}, args...)...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit) && exit.ExitCode() == 3:
		testutil.Unavailable(t, "userns", "uid 65534 cannot have a user namespace here: "+out.String())
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	}
	t.Fatalf("%s: %v", exe, err)
	return "", -1
}

// A target or source that is not there fails the launch with a
// BindFileError naming both and the step, not a run without the bind.
func TestSpawnBindFilesMissing(t *testing.T) {
	testutil.RequireRoot(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := testutil.WorldDir(t, "kernel-bind")
	source := testutil.WriteFile(t, dir, "resolv.conf", "nameserver 127.0.0.53\n")
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		bind BindFile
		step string
	}{
		{BindFile{Source: source, Target: missing}, "open the target"},
		{BindFile{Source: missing, Target: "/etc/resolv.conf"}, "open the source"},
	} {
		out, err := spawnOutput(probeSetup(exe, []BindFile{c.bind}, c.bind.Target))
		var be *BindFileError
		if !errors.As(err, &be) || be.BindFile != c.bind || be.Step != c.step || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("bind %+v: %v (output %q); want a BindFileError at %q, ENOENT", c.bind, err, out, c.step)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.bind.Target) || !strings.Contains(msg, c.bind.Source) {
			t.Errorf("the error names neither file: %s", msg)
		}
		if out != "" {
			t.Errorf("the agent ran: %q", out)
		}
	}
}

// BindFiles that cannot be honoured (NoFence, or a relative path) are
// refused before anything starts: no child ever reports.
func TestSpawnBindFilesRefused(t *testing.T) {
	source := "/etc/hostname"
	for _, c := range []struct {
		name  string
		setup AgentSetup
		want  error
	}{
		{"NoFence", AgentSetup{NoFence: true, BindFiles: []BindFile{{Source: source, Target: "/etc/resolv.conf"}}}, ErrBindNeedsFence},
		{"relative target", AgentSetup{BindFiles: []BindFile{{Source: source, Target: "etc/resolv.conf"}}}, nil},
		{"relative source", AgentSetup{BindFiles: []BindFile{{Source: "hostname", Target: "/etc/resolv.conf"}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			statusParent, statusChild, err := StatusSocket()
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(statusParent)
			// Were it started, the child would read EOF for its go-ahead
			// and exit.
			devnull, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer devnull.Close()
			c.setup.Path, c.setup.Args, c.setup.Program = "/bin/true", []string{"true"}, allowAll
			pid, _, _, err := Spawn(&SpawnConfig{AgentSetup: c.setup, Status: statusChild, Control: int(devnull.Fd())})
			unix.Close(statusChild)
			if pid > 0 {
				unix.Wait4(pid, nil, 0, nil) // started after all: it exits at the go-ahead's EOF
			}
			if err == nil || pid != -1 || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("Spawn: pid %d, %v; want it refused (%v)", pid, err, c.want)
			}
			if c.want == nil && !strings.Contains(err.Error(), "absolute") {
				t.Errorf("Spawn: %v; want it to ask for absolute paths", err)
			}
			if st, _, rerr := ReadSpawnStatus(statusParent); rerr != io.EOF {
				t.Errorf("a child reported %+v, %v; want none started", st, rerr)
			}
		})
	}
}
