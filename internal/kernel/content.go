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

// Sum says whether a file is hashed, and whether a ContentCache may
// answer for it.
type Sum uint8

const (
	// SumSkip: not hashed.
	SumSkip Sum = iota + 1
	// SumCached: answered from the cache while the file's FileKey holds.
	SumCached
	// SumFresh: read at every call, for a file the agent can write in
	// place. A write through a MAP_SHARED mapping on tmpfs, to a page
	// read first (mapped writable at that fault: tmpfs wants no write
	// notification), moves neither the size nor the mtime nor the
	// ctime, so no key tells the new content from the old. The file is never answered from the
	// cache again, for any caller: whoever asks next, the agent that
	// could write it may have.
	SumFresh
)

// ContentCache hashes files (sha256) once per FileKey, unless a caller
// hashed the file with SumFresh. It is safe for concurrent use; it
// forgets everything when it holds max keys, and answers nothing from
// the cache once max files were hashed fresh.
type ContentCache struct {
	mu   sync.Mutex
	sums map[FileKey]string
	// fresh are the files hashed with SumFresh.
	fresh map[FileID]bool
	max   int
	// Reads counts the files read (not answered from the cache), for tests.
	Reads int
}

// NewContentCache returns a cache of at most max keys.
func NewContentCache(max int) *ContentCache {
	return &ContentCache{sums: map[FileKey]string{}, fresh: map[FileID]bool{}, max: max}
}

// sum returns the sha256 of the file open at fd (any mode: it is
// reopened for reading through /proc/self/fd), whose stat is st: from
// the cache only for SumCached (SumSkip is the caller's to honour).
func (c *ContentCache) sum(fd int, st *unix.Stat_t, how Sum) (string, error) {
	key := keyOf(st)
	if how == SumFresh && MappedWritesMoveTimes(fd) {
		how = SumCached
	}
	c.mu.Lock()
	if how == SumFresh && !c.fresh[key.ID] {
		if len(c.fresh) < c.max {
			c.fresh[key.ID] = true
		} else {
			c.max = 0 // too many to remember: cache nothing
		}
		delete(c.sums, key)
	}
	s, ok := c.sums[key]
	c.mu.Unlock()
	if ok && how == SumCached {
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
	if c.max > 0 && !c.fresh[key.ID] {
		c.sums[key] = s
	}
	c.mu.Unlock()
	return s, nil
}

// SumFile hashes the file at path (opened as the kernel would; a
// "/proc/<pid>/exe" link opens the process's executable) and identifies
// it; how is SumCached or SumFresh.
func (c *ContentCache) SumFile(path string, how Sum) (FileID, string, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return FileID{}, "", &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return FileID{}, "", os.NewSyscallError("fstat", err)
	}
	s, err := c.sum(fd, &st, how)
	if err != nil {
		return FileID{}, "", &os.PathError{Op: "hash", Path: path, Err: err}
	}
	return keyOf(&st).ID, s, nil
}

// MappedWritesMoveTimes: the file open at fd lives on a file system that
// moves its mtime and ctime at the first write through every new shared
// mapping (its page_mkwrite calls file_update_time: ext4, xfs, btrfs,
// f2fs), or on one that cannot be written (squashfs, erofs), so a
// FileKey tells a rewritten content from the old one and SumFresh may
// be answered from the cache. Exec refuses a file while a writable
// mapping of it exists (ETXTBSY), so a write after the hash needs a new
// mapping, and so a fault. tmpfs, ramfs, hugetlbfs and overlayfs (whose
// upper layer may be tmpfs) are not among them, nor is anything unknown.
func MappedWritesMoveTimes(fd int) bool {
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) != nil {
		return false
	}
	switch uint32(fs.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC,
		unix.SQUASHFS_MAGIC, unix.EROFS_SUPER_MAGIC_V1:
		return true
	}
	return false
}
