package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesAPlantedSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "result.json")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep" {
		t.Fatalf("the link's target was written: %q", got)
	}
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o644 {
		t.Fatalf("%s: %v, %v; want a regular 0644 file", path, info.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestWriteFileKeepsAnExistingFilesMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "base.yaml")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	if got, _ := os.ReadFile(path); string(got) != "new" || info.Mode().Perm() != 0o600 {
		t.Fatalf("%q %v; want new, 0600", got, info.Mode())
	}
}

func TestOpenLockRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	created := filepath.Join(dir, "created")
	lock := filepath.Join(dir, "obs.json.lock")
	if err := os.Symlink(created, lock); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenLock(lock); !errors.Is(err, ErrSymlink) {
		f.Close()
		t.Fatalf("OpenLock: %v; want ErrSymlink", err)
	}
	if _, err := os.Lstat(created); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock's link target was created: %v", err)
	}
}

func TestCheckWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	uid, gid := uint32(os.Getuid())+1, uint32(os.Getgid())+1
	if err := CheckWriter(path, uid, gid); err != nil {
		t.Fatalf("a 0755 directory of ours: %v", err)
	}
	if err := os.Chmod(dir, 0o757); err != nil {
		t.Fatal(err)
	}
	err := CheckWriter(path, uid, gid)
	if !errors.Is(err, ErrUnsafeTarget) {
		t.Fatalf("a world-writable directory: %v; want ErrUnsafeTarget", err)
	}
	if err := CheckWriter(path, uint32(os.Getuid()), gid); !errors.Is(err, ErrUnsafeTarget) {
		t.Fatalf("a directory of the agent's user: %v; want ErrUnsafeTarget", err)
	}
}

func TestOpenAppend(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "github_output")
	if err := os.WriteFile(path, []byte("a=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenAppend(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("b=2\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, _ := os.ReadFile(path); string(got) != "a=1\nb=2\n" {
		t.Errorf("%q: want the line appended", got)
	}
}

func TestOpenAppendRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "github_output")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(path, 0o644); !errors.Is(err, ErrSymlink) {
		f.Close()
		t.Fatalf("OpenAppend: %v; want ErrSymlink", err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep" {
		t.Errorf("the link's target was written: %q", got)
	}
}
