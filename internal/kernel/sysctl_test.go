package kernel

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestReadSysctl(t *testing.T) {
	v, err := ReadSysctl("kernel.pid_max")
	if err != nil || v == "" || strings.ContainsAny(v, "\n ") {
		t.Errorf("kernel.pid_max = %q, %v", v, err)
	}
	if _, err := ReadSysctl("kernel.no_such_setting"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "kernel.no_such_setting") {
		t.Errorf("missing sysctl: %v", err)
	}
	if err := WriteSysctl("kernel.no_such_setting", "1"); err == nil || !strings.Contains(err.Error(), "write sysctl kernel.no_such_setting") {
		t.Errorf("writing a missing sysctl: %v", err)
	}
}

func TestBootCmdline(t *testing.T) {
	if c, err := BootCmdline(); err != nil || strings.HasSuffix(c, "\n") {
		t.Errorf("cmdline %q, %v", c, err)
	}
}

func TestNamespaceInode(t *testing.T) {
	user, err := NamespaceInode("user")
	if err != nil || user == 0 {
		t.Fatalf("user namespace inode %d, %v", user, err)
	}
	if st, err := os.Stat("/proc/self/ns/user"); err != nil || user != st.Sys().(*syscall.Stat_t).Ino {
		t.Errorf("inode %d, stat says %v (%v)", user, st.Sys(), err)
	}
	if _, err := NamespaceInode("nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unknown namespace: %v", err)
	}
}

func TestParsePeakRSS(t *testing.T) {
	if kib, err := parsePeakRSS([]byte("Name:\tsh\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\n")); err != nil || kib != 1234 {
		t.Errorf("got %d, %v; want 1234", kib, err)
	}
	for _, bad := range []string{"Name:\tkthreadd\n", "VmHWM:\t12 MB\n", "VmHWM:\tx kB\n"} {
		if _, err := parsePeakRSS([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if kib, err := PeakRSS(os.Getpid()); err != nil || kib <= 0 {
		t.Errorf("own peak RSS %d, %v", kib, err)
	}
}

func TestCountAuditMulticast(t *testing.T) {
	table := "sk               Eth Pid        Groups   Rmem     Wmem     Dump  Locks    Drops    Inode\n" +
		"0000000000000000 0   1          00000000 0        0        0     2        0        1\n" + // rtnetlink
		"0000000000000000 9   0          00000000 0        0        0     2        0        2\n" + // audit, no group
		"0000000000000000 9   4242       00000001 0        0        0     2        0        3\n" + // audit multicast
		"0000000000000000 9   4243       00000001 0        0        0     2        0        4\n"
	if n := countAuditMulticast([]byte(table)); n != 2 {
		t.Errorf("counted %d audit multicast sockets, want 2", n)
	}
	if n := countAuditMulticast(nil); n != 0 {
		t.Errorf("empty table: %d", n)
	}
}
