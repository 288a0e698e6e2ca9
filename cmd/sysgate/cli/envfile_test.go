package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestParseEnvFile(t *testing.T) {
	got, err := parseEnvFile("a.env", []byte("# comment\n\nexport A=1\n B = x\nC=a=b\r\nD=\n"))
	if err == nil {
		t.Fatalf("%q parsed: a name with a space is not a variable name", got)
	}
	if !strings.Contains(err.Error(), "a.env:4:") {
		t.Errorf("error %v does not name a.env:4", err)
	}
	got, err = parseEnvFile("a.env", []byte("# comment\n\nexport A=1\nC=a=b\r\nD=\n"))
	if err != nil || !slices.Equal(got, []string{"A=1", "C=a=b", "D="}) {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := parseEnvFile("a.env", []byte("A=x\x00y\n")); err == nil || !strings.Contains(err.Error(), "a.env:1: A holds a NUL") {
		t.Errorf("a NUL in a value: %v", err)
	}
}

// A FIFO named as --env-file is refused at once rather than read forever.
func TestReadEnvFileRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "env")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readEnvFile(fifo); err == nil || !strings.Contains(err.Error(), "--env-file") {
		t.Errorf("FIFO: %v", err)
	}
	if _, err := readEnvFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file read")
	}
	_ = os.Remove(fifo)
}

func FuzzParseEnvFile(f *testing.F) {
	for _, seed := range []string{"A=1\n", "# c\nexport B=x=y\n", "bad line\n", "C=\x00\n", "\r\n\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vars, err := parseEnvFile("fuzz.env", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.env:") {
				t.Errorf("error without file:line: %v", err)
			}
			return
		}
		for _, kv := range vars {
			name, _, ok := strings.Cut(kv, "=")
			if !ok || !envName.MatchString(name) || strings.IndexByte(kv, 0) >= 0 {
				t.Errorf("parsed %q", kv)
			}
		}
	})
}
