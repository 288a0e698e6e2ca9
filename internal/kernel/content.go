package kernel

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// FileKey is what a file's content is cached by. A rewrite changes the
// ctime (which no unprivileged call can set back) and mostly the size
// and mtime too, so content read under one key is the file's as long
// as the key holds. The kernel's fine-grained timestamps for files whose
// times were queried (6.13+) keep two rewrites within one tick apart.
type FileKey struct {
	ID           FileID
	Size         int64
	Mtime, Ctime unix.Timespec
}

func keyOf(st *unix.Stat_t) FileKey {
	return FileKey{ID: FileID{uint64(st.Dev), st.Ino}, Size: st.Size, Mtime: st.Mtim, Ctime: st.Ctim}
}

// errChanged: the file changed while it was read.
var errChanged = errors.New("the file changed while sysgate read it")

// ContentCache hashes files (sha256) once per FileKey. It is safe for
// concurrent use; it forgets everything when it holds max keys.
type ContentCache struct {
	mu   sync.Mutex
	sums map[FileKey]string
	max  int
	// Reads counts the files read (not answered from the cache), for tests.
	Reads int
}

// NewContentCache returns a cache of at most max keys.
func NewContentCache(max int) *ContentCache {
	return &ContentCache{sums: map[FileKey]string{}, max: max}
}

// sum returns the sha256 of the file open at fd (any mode: it is
// reopened for reading through /proc/self/fd), whose stat is st.
func (c *ContentCache) sum(fd int, st *unix.Stat_t) (string, error) {
	key := keyOf(st)
	c.mu.Lock()
	s, ok := c.sums[key]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	f, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	var after unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &after); err != nil {
		return "", os.NewSyscallError("fstat", err)
	}
	if keyOf(&after) != key {
		return "", errChanged
	}
	s = hex.EncodeToString(h.Sum(nil))
	c.mu.Lock()
	c.Reads++
	if len(c.sums) >= c.max {
		clear(c.sums)
	}
	c.sums[key] = s
	c.mu.Unlock()
	return s, nil
}

// SumFile hashes the file at path (opened as the kernel would; a
// "/proc/<pid>/exe" link opens the process's executable) and identifies it.
func (c *ContentCache) SumFile(path string) (FileID, string, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return FileID{}, "", &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return FileID{}, "", os.NewSyscallError("fstat", err)
	}
	s, err := c.sum(fd, &st)
	if err != nil {
		return FileID{}, "", &os.PathError{Op: "hash", Path: path, Err: err}
	}
	return keyOf(&st).ID, s, nil
}
