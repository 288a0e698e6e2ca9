package harness

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/compile"
)

// profileCache keeps loaded and compiled baselines between the runs of
// one process, so a suite that checks many agents against the same files
// parses and compiles them once (the two cost ~0.3 ms per run here,
// mostly YAML parsing). An entry is used only while every file of its
// stack still has the bytes it was loaded from: each run re-reads and
// hashes them, so a baseline edited between runs takes effect at once.
var profileCache = struct {
	sync.Mutex
	entries map[string]*cachedProfile
}{entries: map[string]*cachedProfile{}}

// maxCachedProfiles bounds the cache; past it, the oldest key is dropped.
const maxCachedProfiles = 64

type cachedProfile struct {
	profile *baseline.Profile
	sums    map[string][sha256.Size]byte // every file of the stack
	filters map[filterKey]*compile.Filter
	seq     uint64
}

type filterKey struct {
	mode baseline.Mode
	opts string // compile.Options, printed with %#v (it holds a slice)
}

func newFilterKey(mode baseline.Mode, opts compile.Options) filterKey {
	return filterKey{mode, fmt.Sprintf("%#v", opts)}
}

var profileSeq uint64

// loadCompiled returns the profile of paths and its filter for mode. The
// key includes the working directory, since relative paths (and the file
// names reported in violations) depend on it.
//
// A filter not in memory is taken from disk (fc, WithFilterCache) when
// the stack was cached here, i.e. every file of it has a sum.
func loadCompiled(paths []string, sel baseline.Selector, resolve func(*baseline.Profile) baseline.Mode, opts compile.Options, fc *filterCache) (*baseline.Profile, baseline.Mode, *compile.Filter, error) {
	wd, _ := os.Getwd()
	key := wd + "\x00" + sel.String() + "\x00" + strings.Join(paths, "\x00")
	profileCache.Lock()
	entry := profileCache.entries[key]
	profileCache.Unlock()
	if entry == nil || !entry.fresh() {
		p, err := baseline.LoadStackFor(sel, paths...)
		if err != nil {
			return nil, 0, nil, err
		}
		entry = &cachedProfile{profile: p, sums: map[string][sha256.Size]byte{}, filters: map[filterKey]*compile.Filter{}}
		if len(p.Unrecorded()) > 0 {
			entry = nil // a layer recorded later must take effect: cache nothing
		}
		for _, f := range p.Files() {
			if entry == nil {
				break
			}
			sum, err := fileSum(f)
			if err != nil {
				entry = nil // unreadable now: use the profile, cache nothing
				break
			}
			entry.sums[f] = sum
		}
		if entry == nil {
			mode := resolve(p)
			filter, err := compile.Compile(p, mode, opts)
			return p.WithScheduling(opts.Scheduling), mode, filter, err
		}
		profileCache.Lock()
		profileSeq++
		entry.seq = profileSeq
		profileCache.entries[key] = entry
		evictOldest()
		profileCache.Unlock()
	}
	mode := resolve(entry.profile)
	fk := newFilterKey(mode, opts)
	profileCache.Lock()
	filter := entry.filters[fk]
	profileCache.Unlock()
	if filter == nil {
		var err error
		if filter, err = fc.compileCached(entry.profile, entry.sums, sel, mode, opts); err != nil {
			return nil, 0, nil, err
		}
		profileCache.Lock()
		entry.filters[fk] = filter
		profileCache.Unlock()
	}
	return entry.profile.WithScheduling(opts.Scheduling), mode, filter, nil
}

// fresh reports whether every file still hashes as it did when loaded.
func (e *cachedProfile) fresh() bool {
	for path, want := range e.sums {
		if got, err := fileSum(path); err != nil || got != want {
			return false
		}
	}
	return true
}

func fileSum(path string) ([sha256.Size]byte, error) {
	b, err := baseline.ReadInput(path)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b), nil
}

// evictOldest drops the oldest entries past the bound; the caller holds
// the lock.
func evictOldest() {
	for len(profileCache.entries) > maxCachedProfiles {
		oldest := ""
		var seq uint64
		for k, e := range profileCache.entries {
			if oldest == "" || e.seq < seq {
				oldest, seq = k, e.seq
			}
		}
		delete(profileCache.entries, oldest)
	}
}
