package envprobe

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestOSRelease(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"debian", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n", "debian 12"},
		{"ubuntu", "NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nID=ubuntu\nID_LIKE=debian\n", "ubuntu 24.04"},
		{"alpine", "NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.19.1\n", "alpine 3.19.1"},
		{"no VERSION_ID", "NAME=\"Arch Linux\"\nID=arch\nBUILD_ID=rolling\n", "arch"},
		{"no ID", "NAME=Linux\nVERSION_ID=1\n", "linux 1"},
		{"empty", "", "linux"},
		{"single quotes", "ID='fedora'\nVERSION_ID='40'\n", "fedora 40"},
		{"escapes", `ID="my\"os"` + "\nVERSION_ID=\"1\\\\2\"\n", `my"os 1\2`},
		{"comments and blanks", "# ID=wrong\n\n  ID=rhel  \nVERSION_ID=\"9.4\" \n", "rhel 9.4"},
		{"CRLF", "ID=debian\r\nVERSION_ID=12\r\n", "debian 12"},
		{"spaces inside", "ID=\"my os\"\nVERSION_ID=\"12\tx\"\n", "my_os 12_x"},
		{"control characters", "ID=\"a\x1bb\"\n", "a_b"},
		{"last wins", "ID=a\nID=b\n", "b"},
		{"empty ID keeps default", "ID=\"\"\nVERSION_ID=2\n", "linux 2"},
		{"malformed lines", "garbage\n=x\nID=suse\n", "suse"},
	} {
		if got := OSRelease([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: OSRelease = %q, want %q", tc.name, got, tc.want)
		}
	}
	long := "ID=" + strings.Repeat("x", 500)
	if got := OSRelease([]byte(long)); len(got) > maxOSField+4 {
		t.Errorf("a 500-byte ID gave %d bytes", len(got))
	}
}

// TestProbeHost compares with what the machine reports through other
// doors: /proc for the kernel, getconf for glibc.
func TestProbeHost(t *testing.T) {
	h, err := ProbeHost()
	if err != nil {
		t.Fatal(err)
	}
	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(release)); h.Kernel != want {
		t.Errorf("Kernel = %q, /proc says %q", h.Kernel, want)
	}
	data, err := os.ReadFile("/etc/os-release")
	if errors.Is(err, fs.ErrNotExist) {
		data, err = os.ReadFile("/usr/lib/os-release")
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := OSRelease(data); h.OS != want || h.OS == "linux" {
		t.Errorf("OS = %q, want %q from os-release", h.OS, want)
	}
	if want := getconfLibc(t); h.Libc != want {
		t.Errorf("Libc = %q, getconf GNU_LIBC_VERSION says %q", h.Libc, want)
	}
	if again, _ := ProbeHost(); again != h {
		t.Errorf("second ProbeHost = %+v, first %+v", again, h)
	}
}

// getconfLibc is glibc's own answer, "glibc 2.36".
func getconfLibc(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("getconf", "GNU_LIBC_VERSION").Output()
	if err != nil {
		t.Fatalf("getconf GNU_LIBC_VERSION: %v (a glibc host is assumed)", err)
	}
	return strings.TrimSpace(string(out))
}

func TestProbeHostRoot(t *testing.T) {
	root := t.TempDir()
	h, err := probeHost(root)
	if err != nil {
		t.Fatal(err)
	}
	if h.OS != "" || h.Libc != "" || h.Kernel == "" {
		t.Errorf("empty root: %+v, want only the kernel", h)
	}

	usrLib := filepath.Join(root, "usr/lib/os-release")
	if err := os.MkdirAll(filepath.Dir(usrLib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(usrLib, []byte("ID=fallback\nVERSION_ID=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h, _ := probeHost(root); h.OS != "fallback 1" {
		t.Errorf("with only /usr/lib/os-release: OS = %q", h.OS)
	}

	// A directory where the file should be: an error naming it, not a guess.
	if err := os.MkdirAll(filepath.Join(root, "etc/os-release"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err = probeHost(root)
	if err == nil || !strings.Contains(err.Error(), "os-release") || h.OS != "" {
		t.Errorf("unreadable os-release: %+v, %v", h, err)
	}
}
