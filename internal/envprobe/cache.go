package envprobe

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// fileKey names one version of a file as a path reaches it: the path as
// asked, and the device, inode, size and modification time it leads to
// (symlinks followed). A reinstall, or a symlink moved to another file,
// changes at least one of them; a cache hit costs one stat.
type fileKey struct {
	path       string
	root       string // the tree the path was asked in (IdentifyIn); "" for the host's
	dev, ino   uint64
	size       int64
	mtime      int64
	notRegular bool
}

func statFile(path string) (fileKey, error) {
	path, err := filepath.Abs(path) // a relative path means another file after a chdir
	if err != nil {
		return fileKey{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fileKey{}, err
	}
	return keyOf(path, fi), nil
}

func keyOf(path string, fi os.FileInfo) fileKey {
	k := fileKey{path: path, size: fi.Size(), mtime: fi.ModTime().UnixNano(), notRegular: !fi.Mode().IsRegular()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.dev, k.ino = uint64(st.Dev), uint64(st.Ino)
	}
	return k
}

// sameFile reports whether k and other describe the same version of a
// file, whatever path reached it.
func (k fileKey) sameFile(other fileKey) bool {
	k.path, k.root = other.path, other.root
	return k == other
}

// maxCached bounds a cache: a run executes a few dozen programs, a long
// suite a few hundred; past the bound the cache starts over.
const maxCached = 4096

// statCache remembers an answer per file version, for every goroutine.
type statCache[V any] struct {
	mu sync.Mutex
	m  map[fileKey]V
}

func newStatCache[V any]() *statCache[V] { return &statCache[V]{m: map[fileKey]V{}} }

func (c *statCache[V]) get(k fileKey) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *statCache[V]) put(k fileKey, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCached {
		clear(c.m)
	}
	c.m[k] = v
}
