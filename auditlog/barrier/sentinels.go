package barrier

import (
	"strconv"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/auditlog/record"
)

// Sentinels are one stream's barrier sentinels and the waiters they
// release. A sentinel releases only the waiters registered before it was
// launched, so concurrent barriers and retries are exact.
type Sentinels struct {
	prefix   string // markerPrefix, the stream id, "."
	mu       sync.Mutex
	regs     uint64            // waiters registered so far
	gen      uint64            // sentinels launched so far
	launched map[uint64]uint64 // sentinel gen -> regs when it was launched
	waiters  map[*Waiter]struct{}
}

// Waiter is one barrier call waiting for a sentinel, or one marker
// (Mark) waiting for its own.
type Waiter struct {
	reg    uint64
	only   uint64 // a marker's: released by this sentinel alone
	done   chan struct{}
	serial uint64 // the releasing sentinel's serial, set before done closes
}

// Done is closed when a sentinel launched after the waiter registered
// arrived, or when the Sentinels were closed.
func (w *Waiter) Done() <-chan struct{} { return w.done }

// Serial returns the audit serial of the sentinel record that released
// the waiter; 0 if it was released by CloseAll. Valid once Done is closed.
func (w *Waiter) Serial() uint64 { return w.serial }

// New returns the sentinels of the stream with id streamID: their thread
// names carry it, so streams of one process tell their sentinels apart.
func New(streamID uint32) *Sentinels {
	return &Sentinels{
		prefix:   markerPrefix + strconv.FormatUint(uint64(streamID), 36) + ".",
		launched: map[uint64]uint64{},
		waiters:  map[*Waiter]struct{}{},
	}
}

// Register adds a waiter; only sentinels launched from now on release it.
func (b *Sentinels) Register() *Waiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.regs++
	w := &Waiter{reg: b.regs, done: make(chan struct{})}
	b.waiters[w] = struct{}{}
	return w
}

// Unregister drops a waiter that gave up (or was released).
func (b *Sentinels) Unregister(w *Waiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.waiters, w)
}

// Launch fires the next sentinel on a throwaway thread and returns once
// it made its marker syscall (or, unless fire, once it would have: fault
// tests suppress the call to make barriers time out).
func (b *Sentinels) Launch(fire bool) error {
	errc := make(chan error, 1)
	go fireSentinel(b.next(), fire, errc)
	return <-errc
}

// Mark fires a sentinel and returns a waiter that only that sentinel
// releases: once it is done, its Serial was taken before Mark returned,
// so every record of anything started after Mark has a higher serial
// (a run's start marker). Nothing needs to wait for it; Unregister it
// when done with it.
func (b *Sentinels) Mark(fire bool) (*Waiter, error) {
	name, w := b.nextMarker()
	errc := make(chan error, 1)
	go fireSentinel(name, fire, errc)
	if err := <-errc; err != nil {
		b.Unregister(w)
		return nil, err
	}
	return w, nil
}

// nextMarker records the launch of a marker sentinel and its waiter.
func (b *Sentinels) nextMarker() (string, *Waiter) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gen++
	b.launched[b.gen] = 0 // releases no barrier waiter
	w := &Waiter{only: b.gen, done: make(chan struct{})}
	b.waiters[w] = struct{}{}
	return b.prefix + strconv.FormatUint(b.gen, 36), w
}

// next records the launch of a sentinel and returns its thread name.
func (b *Sentinels) next() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.gen++
	b.launched[b.gen] = b.regs
	return b.prefix + strconv.FormatUint(b.gen, 36)
}

// IsMarker reports whether comm (of a record of this process) names one
// of these sentinels.
func (b *Sentinels) IsMarker(comm record.Text) bool {
	return comm.Quoted && strings.HasPrefix(string(comm.Raw), b.prefix)
}

// Fired handles a sentinel record (IsMarker): it releases the waiters
// registered before that sentinel was launched.
func (b *Sentinels) Fired(comm record.Text, serial uint64) {
	gen, err := strconv.ParseUint(string(comm.Raw[len(b.prefix):]), 36, 64)
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	regs, ok := b.launched[gen]
	if !ok {
		return
	}
	delete(b.launched, gen)
	for w := range b.waiters {
		if w.only != 0 && w.only != gen || w.only == 0 && w.reg > regs {
			continue
		}
		if w.serial == 0 {
			w.serial = serial
			close(w.done)
			delete(b.waiters, w)
		}
	}
	// Sentinels launched long before this one either fired (and arrived
	// earlier) or never will: forget them.
	for g := range b.launched {
		if g+1024 < gen {
			delete(b.launched, g)
		}
	}
}

// CloseAll releases every waiter with serial 0 (the stream closed).
func (b *Sentinels) CloseAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.waiters {
		close(w.done)
		delete(b.waiters, w)
	}
}
