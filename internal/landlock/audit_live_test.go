package landlock

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/landlock.log from a live run")

// A real denial after execve reaches audit as an ACCESS record and the
// domain's "allocated" record, and the parsers read both. Audit must be
// enabled for Landlock to log at all, so the test holds the kernel
// exclusively (no sysgate run is active meanwhile) and its release
// restores enabled. With -update the records become testdata.
func TestDenialAuditLive(t *testing.T) {
	testutil.RequireAudit(t)
	abi := requireABI(t, 7)
	auditctltest.HoldExclusive(t)
	if err := auditctltest.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	sock := multicast(t)
	d := t.TempDir()
	secret := filepath.Join(d, "secret")
	if err := os.WriteFile(secret, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	rs, _ := build(t, abi, append(ProgramRules([]string{"/bin/cat"}), systemRead...))
	got := inChild(t, rs, LogFlags(abi), "cat "+secret)
	if got["cat "+secret] == "ok" {
		t.Fatalf("cat read the secret: %v", got)
	}
	var denial Denial
	var domain DomainRecord
	var lines [][]byte
	for denial.Path != secret || domain.Domain != denial.Domain {
		typ, data := receive(t, sock)
		switch typ {
		case AuditAccess:
			dn, err := ParseAccess(data)
			if err != nil {
				t.Fatalf("%v: %s", err, data)
			}
			if dn.Path == secret {
				denial = dn
				lines = append(lines, fmt.Appendf(nil, "%d %s", typ, data))
			}
		case AuditDomain:
			dm, err := ParseDomain(data)
			if err != nil {
				t.Fatalf("%v: %s", err, data)
			}
			if dm.Status == "allocated" {
				domain = dm
				lines = append(lines, fmt.Appendf(nil, "%d %s", typ, data))
			}
		case unix.AUDIT_SYSCALL, unix.AUDIT_PATH, unix.AUDIT_CWD, unix.AUDIT_PROCTITLE:
			if denial.Serial != 0 && bytes.Contains(data, fmt.Appendf(nil, ":%d)", denial.Serial)) {
				lines = append(lines, fmt.Appendf(nil, "%d %s", typ, data))
			}
		}
	}
	if len(denial.Blockers) != 1 || denial.Blockers[0] != "fs.read_file" {
		t.Errorf("blockers %v, want fs.read_file", denial.Blockers)
	}
	if domain.Status != "allocated" || domain.PID <= 0 || domain.Mode != "enforcing" {
		t.Errorf("domain record %+v", domain)
	}
	t.Logf("records:\n%s", bytes.Join(lines, []byte("\n")))
	if *update {
		if err := os.WriteFile("testdata/landlock-live.log", append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// multicast joins audit's read-only multicast group; the receive timeout
// bounds the wait for a record that never comes, it is not a pacing sleep.
func multicast(t *testing.T) int {
	t.Helper()
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_AUDIT)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: unix.AUDIT_NLGRP_READLOG}); err != nil {
		t.Fatal(err)
	}
	tv := unix.Timeval{Sec: 10}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		t.Fatal(err)
	}
	return fd
}

// receive returns one record: audit sends one per datagram, and its
// nlmsg_len is not always right, so the header is read by hand.
func receive(t *testing.T, fd int) (uint16, []byte) {
	t.Helper()
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if errors.Is(err, unix.EINTR) {
			continue // a signal (the Go runtime's preemption) before a record, under SO_RCVTIMEO
		}
		if err != nil {
			t.Fatalf("no landlock record: %v", err)
		}
		if n > unix.NLMSG_HDRLEN {
			typ := binary.NativeEndian.Uint16(buf[4:6])
			return typ, bytes.TrimRight(append([]byte(nil), buf[unix.NLMSG_HDRLEN:n]...), "\x00\n")
		}
	}
}

// A refused TCP connect or bind after execve reaches audit with the
// address and port the agent asked for, and ParseAccess reads them.
func TestNetDenialAuditLive(t *testing.T) {
	testutil.RequireAudit(t)
	abi := requireABI(t, 7)
	other := listenLoopback(t)
	auditctltest.HoldExclusive(t)
	if err := auditctltest.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	sock := multicast(t)
	rs, _, err := Build(abi, Spec{Net: NetRules{Handled: ConnectTCP | BindTCP}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.Close() })
	connect, bind := "connect "+loopback(other), "bind "+loopback(other)
	got := inChild(t, rs, LogFlags(abi), "exec-net "+connect, "exec-net "+bind)
	expect(t, got, map[string]string{connect: "EACCES", bind: "EACCES"})
	var denials []Denial
	for len(denials) < 2 {
		typ, data := receive(t, sock)
		if typ != AuditAccess {
			continue
		}
		t.Logf("%d %s", typ, data)
		dn, err := ParseAccess(data)
		if err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		denials = append(denials, dn)
	}
	addr := netip.MustParseAddr("127.0.0.1")
	for i, blocker := range []string{"net.connect_tcp", "net.bind_tcp"} {
		d := denials[i]
		if len(d.Blockers) != 1 || d.Blockers[0] != blocker || d.Addr != addr || d.Port != other {
			t.Errorf("denial %d: %+v, want %s of %s:%d", i, d, blocker, addr, other)
		}
	}
}
