package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
	"github.com/sysgate/sysgate/internal/scmp"
)

// WithFilterCache keeps the filters Run compiles from baseline files in
// sysgate's state directory (/run/sysgate/filters), so that the next
// process checking the same files skips libseccomp: the audit backend's
// filter (a rule for every syscall, see compile.Compile) costs ~3 ms of a
// ~20 ms start here. A filter is keyed by the sha256 of every file of
// the stack, the mode, the compile options, the arch and sysgate's own
// executable, so an edited baseline or a rebuilt sysgate compiles anew.
//
// Only a process that fences its agents from that directory uses it:
// root with CAP_SYS_ADMIN, whose runs hide the state directory under an
// empty read-only tmpfs (outOfReach). A file is taken only from a
// directory and as a file that root owns and nobody else may write, so
// neither an agent nor another user can plant a filter. Anything else
// (another uid, a file that does not decode, or a filter for another
// key) compiles as without the cache.
func WithFilterCache() Option { return func(c *runConfig) { c.filterCache = true } }

// filterCacheDir is where WithFilterCache keeps filters (a variable for
// tests, which also lift the fence requirement with filterCacheAnyone).
var filterCacheDir = filepath.Join(auditctl.StateDir, "filters")

// maxCachedFilters bounds the directory; past it the oldest files go.
const maxCachedFilters = 64

// filterCacheFormat changes whenever cachedFilter or the key changes.
const filterCacheFormat = "sysgate filter cache 1"

// filterCache is the directory a run may use, or nil.
type filterCache struct{ dir string }

// diskFilterCache is the run's cache: nil unless asked for and fenced.
func (c *runConfig) diskFilterCache() *filterCache {
	if !c.filterCache || os.Geteuid() != 0 || !hasCap(capSysAdmin) {
		return nil
	}
	return &filterCache{dir: filterCacheDir}
}

// cachedFilter is a file of the cache: the filter as JSON (so a field
// compile.Filter gains is kept without a change here), its programs as
// packed sock_filter bytes (JSON numbers for ~500 instructions cost
// ~0.4 ms to decode; base64 is ~20x cheaper).
type cachedFilter struct {
	Key               string
	Filter            *compile.Filter
	Program, Listener []byte
}

func newCachedFilter(key string, f *compile.Filter) cachedFilter {
	bare := *f
	bare.Program, bare.Listener = nil, nil
	return cachedFilter{Key: key, Filter: &bare, Program: packProgram(f.Program), Listener: packProgram(f.Listener)}
}

// filter is the cached filter with its programs unpacked; nil when they
// do not unpack.
func (c cachedFilter) filter() *compile.Filter {
	prog, ok1 := unpackProgram(c.Program)
	listener, ok2 := unpackProgram(c.Listener)
	if c.Filter == nil || !ok1 || !ok2 {
		return nil
	}
	f := *c.Filter
	f.Program, f.Listener = prog, listener
	return &f
}

// packProgram lays out each instruction as struct sock_filter does:
// code (16 bits), jt, jf, k (32 bits), little-endian.
func packProgram(prog []unix.SockFilter) []byte {
	if prog == nil {
		return nil
	}
	out := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		out = binary.LittleEndian.AppendUint16(out, in.Code)
		out = append(out, in.Jt, in.Jf)
		out = binary.LittleEndian.AppendUint32(out, in.K)
	}
	return out
}

func unpackProgram(b []byte) ([]unix.SockFilter, bool) {
	if b == nil {
		return nil, true
	}
	if len(b)%8 != 0 {
		return nil, false
	}
	prog := make([]unix.SockFilter, len(b)/8)
	for i := range prog {
		in := b[8*i:]
		prog[i] = unix.SockFilter{Code: binary.LittleEndian.Uint16(in), Jt: in[2], Jf: in[3], K: binary.LittleEndian.Uint32(in[4:])}
	}
	return prog, true
}

// key names the filter of the profile whose files hash to sums.
func (fc *filterCache) key(files []string, sums map[string][sha256.Size]byte, sel baseline.Selector, mode baseline.Mode, opts compile.Options) (string, bool) {
	var exe unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &exe); err != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d:%d:%d:%d.%d:%d.%d\x00%s\x00%d\x00%#v\x00", filterCacheFormat, scmp.Native(),
		exe.Dev, exe.Ino, exe.Size, exe.Mtim.Sec, exe.Mtim.Nsec, exe.Ctim.Sec, exe.Ctim.Nsec, sel.String(), mode, opts)
	for _, f := range files {
		sum, ok := sums[f]
		if !ok {
			return "", false
		}
		fmt.Fprintf(h, "%s\x00%x\x00", f, sum)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// load returns the cached filter for key, or nil.
func (fc *filterCache) load(key string, mode baseline.Mode) *compile.Filter {
	if !rootOnly(fc.dir, true) {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(fc.dir, key), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !ownedByRootOnly(fi) || fi.Size() > 1<<20 {
		return nil
	}
	var c cachedFilter
	if err := json.NewDecoder(f).Decode(&c); err != nil || c.Key != key {
		return nil
	}
	// A program the kernel would refuse, or one for another mode, is not
	// this key's: compile instead.
	filter := c.filter()
	if filter == nil || filter.Mode != mode || len(filter.Program) == 0 || len(filter.Program) > unix.BPF_MAXINSNS ||
		len(filter.Listener) > unix.BPF_MAXINSNS || len(filter.Arches) == 0 {
		return nil
	}
	return filter
}

// store writes filter under key (a temp file renamed into place). The
// cache is an optimisation: a failure to write is not the run's.
func (fc *filterCache) store(key string, filter *compile.Filter) {
	if err := os.MkdirAll(fc.dir, 0o700); err != nil || !rootOnly(fc.dir, true) {
		return
	}
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(newCachedFilter(key, filter)); err != nil {
		return
	}
	tmp, err := os.CreateTemp(fc.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b.Bytes())
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(fc.dir, key)) != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	fc.evict()
}

// evict removes the oldest files past maxCachedFilters.
func (fc *filterCache) evict() {
	entries, err := os.ReadDir(fc.dir)
	if err != nil || len(entries) <= maxCachedFilters {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var files []aged
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			files = append(files, aged{e.Name(), fi.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b aged) int { return int(min(max(a.mod-b.mod, -1), 1)) })
	for _, f := range files[:max(0, len(files)-maxCachedFilters)] {
		_ = os.Remove(filepath.Join(fc.dir, f.name))
	}
}

// rootOnly reports whether path is a directory (or a file) that root
// owns and that neither its group nor others may write, reached without
// a symbolic link at its last step.
func rootOnly(path string, dir bool) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	return fi.IsDir() == dir && ownedByRootOnly(fi)
}

func ownedByRootOnly(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == 0 && fi.Mode().Perm()&0o022 == 0
}

// compileCached is compile.Compile through the disk cache when fc is
// not nil and every file of p has a sum.
func (fc *filterCache) compileCached(p *baseline.Profile, sums map[string][sha256.Size]byte, sel baseline.Selector, mode baseline.Mode, opts compile.Options) (*compile.Filter, error) {
	if fc == nil {
		return compile.Compile(p, mode, opts)
	}
	key, ok := fc.key(p.Files(), sums, sel, mode, opts)
	if !ok {
		return compile.Compile(p, mode, opts)
	}
	if f := fc.load(key, mode); f != nil {
		return f, nil
	}
	f, err := compile.Compile(p, mode, opts)
	if err != nil {
		return nil, err
	}
	fc.store(key, f)
	return f, nil
}
