package auditlog

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sysgate/sysgate/internal/auditnl"
	"github.com/sysgate/sysgate/internal/scmp"
)

// The barrier's sentinel is a throwaway OS thread of this process: it
// names itself "sgb<stream>.<gen>", installs a seccomp filter on itself
// only that logs getppid(markerArg) and allows everything else, makes that
// call and exits. Records are queued in order, so once its record arrives
// every record emitted before the sentinel fired has arrived too. The name
// tells which sentinel fired, so concurrent barriers and retries are exact:
// a sentinel releases only the waiters registered before it was launched.
const (
	markerPrefix = "sgb"
	markerArg    = 0x5379_7347 // "SysG"; getppid ignores its arguments
)

type barrierState struct {
	mu       sync.Mutex
	regs     uint64            // waiters registered so far
	gen      uint64            // sentinels launched so far
	launched map[uint64]uint64 // sentinel gen -> regs when it was launched
	waiters  map[*barrierWaiter]struct{}
}

type barrierWaiter struct {
	reg    uint64
	done   chan struct{}
	serial uint64 // the releasing sentinel's serial, set before done closes
}

func (b *barrierState) init() {
	b.launched = map[uint64]uint64{}
	b.waiters = map[*barrierWaiter]struct{}{}
}

// Barrier returns once every audit record emitted before the call has
// been received and dispatched (subscribers have seen their events).
func (s *Stream) Barrier(ctx context.Context) error {
	_, err := s.BarrierSerial(ctx)
	return err
}

// BarrierSerial is Barrier returning the sentinel record's serial.
func (s *Stream) BarrierSerial(ctx context.Context) (uint64, error) {
	b := &s.barrier
	b.mu.Lock()
	b.regs++
	w := &barrierWaiter{reg: b.regs, done: make(chan struct{})}
	b.waiters[w] = struct{}{}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waiters, w)
		b.mu.Unlock()
	}()
	for attempt := 0; attempt < s.opts.BarrierAttempts; attempt++ {
		if err := s.launchSentinel(); err != nil {
			return 0, err
		}
		t := time.NewTimer(s.opts.BarrierTimeout)
		select {
		case <-w.done:
			t.Stop()
			if w.serial == 0 {
				return 0, ErrClosed
			}
			return w.serial, nil
		case <-ctx.Done():
			t.Stop()
			return 0, fmt.Errorf("audit barrier: %w", context.Cause(ctx))
		case <-s.dispDone:
			t.Stop()
			return 0, ErrClosed
		case <-t.C:
		}
	}
	err := fmt.Errorf("%w: no sentinel record after %d attempts of %v", ErrBarrierTimeout, s.opts.BarrierAttempts, s.opts.BarrierTimeout)
	if why := actionNotLogged(); why != nil {
		return 0, errors.Join(why, err)
	}
	return 0, err
}

// SetSentinelSuppressed is for fault tests: while on, barrier sentinels
// never make their marker syscall, so barriers (and Subscription.Close)
// time out and runs come out inconclusive. It works on Shared() too.
func (s *Stream) SetSentinelSuppressed(on bool) { s.suppressSentinel.Store(on) }

func (s *Stream) launchSentinel() error {
	b := &s.barrier
	b.mu.Lock()
	b.gen++
	gen := b.gen
	b.launched[gen] = b.regs
	b.mu.Unlock()
	name := markerPrefix + strconv.FormatUint(uint64(s.id), 36) + "." + strconv.FormatUint(gen, 36)
	errc := make(chan error, 1)
	go fireSentinel(name, !s.suppressSentinel.Load(), errc)
	if err := <-errc; err != nil {
		return fmt.Errorf("audit barrier sentinel: %w", err)
	}
	return nil
}

var sentinelFilter = sync.OnceValue(func() auditnl.Filter {
	return auditnl.LogOneSyscall(scmp.Native().AuditArch(), auditnl.GetppidNr, true, markerArg)
})

// fireSentinel runs on a goroutine that locks its thread and never
// unlocks it: the runtime then ends the thread, and its filter with it.
func fireSentinel(name string, fire bool, errc chan<- error) {
	runtime.LockOSThread()
	if auditnl.OnMainThread() {
		// The runtime parks the main thread forever instead of ending
		// it, and its name is the process's. While the main thread is
		// locked to this goroutine a new goroutine must run elsewhere.
		moved := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(moved)
			fireOnThisThread(name, fire, errc)
		}()
		<-moved
		runtime.UnlockOSThread()
		return
	}
	fireOnThisThread(name, fire, errc)
}

// fireOnThisThread runs on a locked thread that is not the main thread
// and returns without unlocking it.
func fireOnThisThread(name string, fire bool, errc chan<- error) {
	if err := auditnl.SetThreadName(name); err != nil {
		errc <- err
		return
	}
	if err := auditnl.InstallThreadFilter(sentinelFilter()); err != nil {
		errc <- err
		return
	}
	if fire {
		auditnl.Getppid(markerArg)
	}
	errc <- nil
}

func (b *barrierState) isMarker(streamID uint32, comm field) bool {
	return comm.quoted && strings.HasPrefix(string(comm.raw), markerPrefix+strconv.FormatUint(uint64(streamID), 36)+".")
}

// fired handles a sentinel record: it releases the waiters registered
// before that sentinel was launched.
func (b *barrierState) fired(streamID uint32, comm field, serial uint64) {
	prefix := markerPrefix + strconv.FormatUint(uint64(streamID), 36) + "."
	gen, err := strconv.ParseUint(string(comm.raw[len(prefix):]), 36, 64)
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
		if w.reg <= regs && w.serial == 0 {
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

func (b *barrierState) closeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for w := range b.waiters {
		close(w.done)
		delete(b.waiters, w)
	}
}
