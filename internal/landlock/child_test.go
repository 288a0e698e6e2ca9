package landlock

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
)

// The tests apply rulesets in a re-executed test binary: a restriction
// cannot be lifted, so it must never land on the test process itself.
const (
	childEnv      = "SYSGATE_LANDLOCK_CHILD"
	childFlagsEnv = "SYSGATE_LANDLOCK_FLAGS"
	childFD       = 3 // the ruleset, ExtraFiles[0]
	// noRestrict tells the child not to restrict itself.
	noRestrict RestrictFlags = 1 << 62
)

func TestMain(m *testing.M) {
	if ops := os.Getenv(childEnv); ops != "" {
		os.Exit(runChild(strings.Split(ops, "\n")))
	}
	os.Exit(auditctltest.RunChecked(m))
}

// runChild restricts its thread with the inherited ruleset and prints one
// line per operation: the operation and "ok" or the errno name.
func runChild(ops []string) int {
	runtime.LockOSThread()
	flags, _ := strconv.ParseUint(os.Getenv(childFlagsEnv), 10, 64)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "no_new_privs:", err)
		return 2
	}
	if RestrictFlags(flags) == noRestrict {
		// Unrestricted: the baseline of a benchmark.
	} else if err := RestrictSelf(childFD, RestrictFlags(flags)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for _, op := range ops {
		fmt.Printf("%s: %s\n", op, errnoName(childOp(strings.Fields(op))))
	}
	return 0
}

func childOp(f []string) error {
	switch f[0] {
	case "read":
		fd, err := unix.Open(f[1], unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "write":
		fd, err := unix.Open(f[1], unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "truncate":
		return unix.Truncate(f[1], 0)
	case "exec":
		// Inherited descriptors: opening /dev/null would need a rule.
		cmd := exec.Command(f[1])
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
		return cmd.Run()
	case "cat":
		cmd := exec.Command("/bin/cat", f[1])
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stderr, os.Stderr
		return cmd.Run()
	case "bench":
		return benchOpen(f[1], f[2])
	case "rename":
		return unix.Rename(f[1], f[2])
	case "link":
		return unix.Link(f[1], f[2])
	case "unlink":
		return unix.Unlink(f[1])
	case "mkdir":
		return unix.Mkdir(f[1], 0o700)
	case "connect", "bind", "udp":
		return netOp(f[0], f[1])
	case "exec-net":
		// The op after an execve, where a domain's denials are logged:
		// the test binary again, in the domain it inherits.
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(f[1:], " "),
			childFlagsEnv+"="+strconv.FormatUint(uint64(noRestrict), 10))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		return cmd.Run()
	}
	return fmt.Errorf("unknown op %q", f[0])
}

// netOp connects or binds a TCP socket, or connects a UDP one, to an
// IPv4 "addr:port".
func netOp(op, hostPort string) error {
	ap, err := netip.ParseAddrPort(hostPort)
	if err != nil {
		return err
	}
	typ := unix.SOCK_STREAM
	if op == "udp" {
		typ = unix.SOCK_DGRAM
	}
	fd, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	sa := &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	if op == "bind" {
		return unix.Bind(fd, sa)
	}
	return unix.Connect(fd, sa)
}

func errnoName(err error) string {
	var errno unix.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	default:
		return err.Error()
	}
}

// inChild runs ops in a child restricted by rs and returns each op's
// result by op.
func inChild(t testing.TB, rs *Ruleset, flags RestrictFlags, ops ...string) map[string]string {
	t.Helper()
	return inCmd(t, exec.Command(os.Args[0], "-test.run=^$"), rs, flags, ops...)
}

// inCmd is inChild with the command given: another binary or user.
func inCmd(t testing.TB, cmd *exec.Cmd, rs *Ruleset, flags RestrictFlags, ops ...string) map[string]string {
	t.Helper()
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(ops, "\n"),
		childFlagsEnv+"="+strconv.FormatUint(uint64(flags), 10))
	// A duplicate: the os.File closes its descriptor, rs keeps its own.
	dup, err := unix.FcntlInt(uintptr(rs.FD()), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(dup), "ruleset")
	defer f.Close()
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		op, res, _ := strings.Cut(line, ": ")
		got[op] = res
	}
	return got
}
