package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ErrSymlink is returned (wrapped) for a target that is a symbolic link
// where sysgate reads back what it wrote before (a lock file, a baseline it
// updates): it neither reads nor writes through one.
var ErrSymlink = errors.New("is a symbolic link")

// WriteFile replaces path with data (see the package doc). An existing
// regular file keeps its permission bits; a new file gets perm.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	dir, name := filepath.Split(filepath.Clean(path))
	dfd, err := openDir(dir)
	if err != nil {
		return &fs.PathError{Op: "open directory", Path: path, Err: err}
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	if serr := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		perm = fs.FileMode(st.Mode) & fs.ModePerm
	}
	tmp, fd, err := createTemp(dfd, name, perm)
	if err != nil {
		return &fs.PathError{Op: "create temporary file for", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, tmp))
	defer func() {
		if err != nil {
			f.Close()
			unix.Unlinkat(dfd, tmp, 0)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil { // the umask applied at create
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = unix.Renameat(dfd, tmp, dfd, name); err != nil {
		return &fs.PathError{Op: "rename into place", Path: path, Err: err}
	}
	_ = unix.Fsync(dfd) // the rename itself survives a crash
	return nil
}

// OpenLock opens (creating it 0644) a lock file without following a
// symlink at path, and without blocking on a FIFO planted there.
func OpenLock(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
	return regularFile(fd, err, "open lock", path)
}

// OpenDirLock opens a directory for flock: a lock on the directory that
// holds the locked files leaves no lock file behind. O_DIRECTORY refuses
// anything else planted at dir (a FIFO would block the open).
func OpenDirLock(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open lock directory", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// regularFile wraps what an open with O_NOFOLLOW returned: a symlink at
// path is ErrSymlink, and anything but a regular file (a FIFO, a device)
// is refused and closed.
func regularFile(fd int, err error, op, path string) (*os.File, error) {
	if errors.Is(err, unix.ELOOP) {
		return nil, &fs.PathError{Op: op, Path: path, Err: ErrSymlink}
	}
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, &fs.PathError{Op: op, Path: path, Err: errors.New("not a regular file")}
	}
	return os.NewFile(uintptr(fd), path), nil
}

func openDir(dir string) (int, error) {
	if dir == "" {
		dir = "."
	}
	return unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// createTemp creates ".NAME.tmpRANDOM" in dfd, exclusively and without
// following a link.
func createTemp(dfd int, name string, perm fs.FileMode) (string, int, error) {
	for range 10 {
		var rnd [6]byte
		if _, err := rand.Read(rnd[:]); err != nil {
			return "", -1, err
		}
		tmp := "." + name + ".tmp" + hex.EncodeToString(rnd[:])
		fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
		if err == nil {
			return tmp, fd, nil
		}
		if !errors.Is(err, unix.EEXIST) {
			return "", -1, err
		}
	}
	return "", -1, fmt.Errorf("no free temporary name beside %s", name)
}

// OpenAppend opens path for appending, creating it with perm if missing,
// relative to its directory and with O_NOFOLLOW, so a symlink planted at
// path is refused (ErrSymlink) rather than written through, and a FIFO
// planted there neither blocks nor is written. It is for files other
// programs append to as well, like GitHub's $GITHUB_OUTPUT, which a
// rename would not do for.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	dir, name := filepath.Split(filepath.Clean(path))
	dfd, err := openDir(dir)
	if err != nil {
		return nil, &fs.PathError{Op: "open directory", Path: path, Err: err}
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm))
	return regularFile(fd, err, "open for append", path)
}
