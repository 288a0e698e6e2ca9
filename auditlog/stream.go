package auditlog

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	libaudit "github.com/elastic/go-libaudit/v2"

	"github.com/sysgate/sysgate/auditlog/auditctl"
	"github.com/sysgate/sysgate/auditlog/barrier"
	"github.com/sysgate/sysgate/auditlog/gaps"
	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/internal/auditnl"
)

// Options configure a Stream. The zero value gives the defaults Shared uses.
type Options struct {
	// RcvBuf is the receive buffer forced on the socket (the kernel doubles
	// it). Default DefaultRcvBuf; a tiny value is how tests provoke ENOBUFS.
	RcvBuf int
	// BarrierTimeout is how long one sentinel may take before the barrier
	// tries another; default 2 s. BarrierAttempts defaults to 3.
	BarrierTimeout  time.Duration
	BarrierAttempts int
	// GapGrace is how long a missing serial may stay missing (records can
	// be queued out of order: the serial is taken when a record starts, and
	// the task can be preempted before it is queued) before it counts as
	// lost; default 5 s. Only a real loss waits that long in Close.
	GapGrace time.Duration
	// Raw, if set, sees every record of every type (the dispatch goroutine
	// calls it; data is only valid during the call). For audit tail --raw
	// and capturing test data.
	Raw func(typ uint16, data []byte)
}

// DefaultRcvBuf is the receive buffer a stream asks for: 64 MiB took
// 100% of 1M records at full speed here, the kernel's default 212 KiB
// lost 7-16%.
const DefaultRcvBuf = 64 << 20

func (o *Options) defaults() {
	if o.RcvBuf <= 0 {
		o.RcvBuf = DefaultRcvBuf
	}
	if o.BarrierTimeout <= 0 {
		o.BarrierTimeout = 2 * time.Second
	}
	if o.BarrierAttempts <= 0 {
		o.BarrierAttempts = 3
	}
	if o.GapGrace <= 0 {
		o.GapGrace = 5 * time.Second
	}
}

// Stream reads AUDIT_SECCOMP records from the kernel's audit multicast
// group and routes them to subscribers by audit session id. One goroutine
// only reads and hands batches on; another parses and dispatches.
type Stream struct {
	opts   Options
	id     uint32
	conn   *auditnl.Conn
	client *libaudit.AuditClient
	pid    int

	batches    chan *batch
	stopping   atomic.Bool
	readerDone chan struct{}
	dispDone   chan struct{}
	readErr    atomic.Pointer[error]

	routesMu sync.RWMutex
	bySes    map[uint32][]*Subscription
	all      []*Subscription
	byAUID   map[uint32][]*Subscription // SubscribeSyscallRecords
	auidSubs atomic.Int32               // len of byAUID's lists, read without the lock
	// openEvents maps the serial of a routed SYSCALL record to its auid
	// until the event's EOE (dispatch goroutine only).
	openEvents map[uint64]uint32

	gaps             *gaps.Tracker
	suppressSentinel atomic.Bool // test-only (export_test.go): barriers time out
	sentinels        *barrier.Sentinels
	malformed        atomic.Uint64 // seccomp records the parser rejected, anyone's
	records          atomic.Uint64
	closeOnce        sync.Once
}

var streamIDs atomic.Uint32

// readTimeout bounds how long Close waits for the reader to notice.
const readTimeout = 50 * time.Millisecond

// recvBatch is how many datagrams one recvmmsg(2) may take off the socket.
const recvBatch = 64

// readNap is how long the reader waits after it has emptied the socket
// before it blocks on it again. A reader that keeps up with an agent
// otherwise sleeps and is woken for nearly every record, and the wake-ups
// (the kernel's and Go's scheduler's) cost more than reading: on 100k
// logged getppid calls here, 0.60 s of CPU against 0.48 s with the nap,
// and the wall time fell from 0.45 s to 0.375 s, the drain-only reader's
// (tools/bench/testdata/drain.c). 200 µs of records is a few hundred, far below
// the 64 MiB buffer; the end-of-run barrier waits up to one nap longer.
const readNap = 200 * time.Microsecond

// Open starts a new stream with its own socket. Most callers want Shared.
func Open(opts Options) (*Stream, error) {
	opts.defaults()
	conn, err := auditnl.Dial(auditnl.Config{Groups: auditnl.GroupReadLog, RcvBuf: opts.RcvBuf, ReadTimeout: readTimeout, Batch: recvBatch})
	if err != nil {
		return nil, fmt.Errorf("open audit multicast socket: %w", auditctl.ClassifySocketErr(err))
	}
	id := streamIDs.Add(1)
	s := &Stream{
		opts:       opts,
		id:         id,
		conn:       conn,
		client:     &libaudit.AuditClient{Netlink: conn},
		pid:        os.Getpid(),
		batches:    make(chan *batch, 4096),
		readerDone: make(chan struct{}),
		dispDone:   make(chan struct{}),
		bySes:      map[uint32][]*Subscription{},
		byAUID:     map[uint32][]*Subscription{},
		openEvents: map[uint64]uint32{},
		gaps:       gaps.New(opts.GapGrace),
		sentinels:  barrier.New(id),
	}
	go s.read()
	go s.dispatch()
	// The join marker: the first sentinel record of this stream starts
	// gap tracking (see package gaps), and this one fires right after
	// the socket joined.
	if err := s.sentinels.Launch(true); err != nil {
		s.Close()
		return nil, fmt.Errorf("audit stream start marker: %w", err)
	}
	return s, nil
}

var (
	sharedMu     sync.Mutex
	sharedStream *Stream
)

// Shared returns the process-wide stream, opening it on first use. It is
// never closed; a failed open is retried on the next call.
func Shared() (*Stream, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedStream != nil {
		return sharedStream, nil
	}
	s, err := Open(Options{})
	if err != nil {
		return nil, err
	}
	sharedStream = s
	return s, nil
}

// Close stops the stream. Open subscriptions get no more events.
func (s *Stream) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.stopping.Store(true)
		<-s.readerDone
		<-s.dispDone
		err = s.client.Close()
		s.sentinels.CloseAll()
	})
	return err
}

// batch is a run of raw records copied out of the socket buffer.
type batch struct {
	data []byte
	recs []rawRecord
}

type rawRecord struct {
	typ      uint16
	off, end uint32
}

const maxBatch = 256

var batchPool = sync.Pool{New: func() any { return &batch{data: make([]byte, 0, 64<<10)} }}

// read does nothing but drain the socket into batches, so the kernel's
// buffer empties at full speed.
func (s *Stream) read() {
	defer close(s.readerDone)
	defer close(s.batches)
	for !s.stopping.Load() {
		b := batchPool.Get().(*batch)
		b.data, b.recs = b.data[:0], b.recs[:0]
		nonBlocking := false
		for len(b.recs) < maxBatch {
			msg, err := s.client.Receive(nonBlocking)
			if err != nil {
				if errors.Is(err, syscall.ENOBUFS) {
					continue // counted by the connection; keep draining
				}
				if !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR) && !s.stopping.Load() {
					s.readErr.Store(&err)
				}
				break
			}
			off := len(b.data)
			b.data = append(b.data, msg.Data...)
			b.recs = append(b.recs, rawRecord{typ: uint16(msg.Type), off: uint32(off), end: uint32(len(b.data))})
			nonBlocking = true
		}
		if len(b.recs) == 0 {
			batchPool.Put(b)
			continue
		}
		drained := len(b.recs) < maxBatch // b is the dispatcher's once sent
		s.batches <- b
		if drained {
			// The socket is empty: let records gather rather than wake
			// for each one (see readNap). A full batch means a flood,
			// which is read on at once.
			time.Sleep(readNap)
		}
	}
}

// dispatch parses and routes batches in order.
func (s *Stream) dispatch() {
	defer close(s.dispDone)
	p := record.NewParser()
	tick := time.NewTicker(s.opts.GapGrace / 4)
	defer tick.Stop()
	for {
		select {
		case b, ok := <-s.batches:
			if !ok {
				return
			}
			s.handle(p, b)
			batchPool.Put(b)
		case now := <-tick.C:
			s.gaps.Expire(now)
		}
	}
}

func (s *Stream) handle(p *record.Parser, b *batch) {
	now := time.Now()
	s.records.Add(uint64(len(b.recs)))
	for _, rr := range b.recs {
		data := trimRecord(b.data[rr.off:rr.end])
		// Records of one syscall event share a serial: the tracker
		// counts a serial once, so they leave no gap.
		serial, _, _, herr := record.Header(data)
		if herr == nil {
			s.gaps.Observe(serial, now)
		}
		if s.opts.Raw != nil {
			s.opts.Raw(rr.typ, data)
		}
		if rr.typ != record.TypeSeccomp {
			if herr == nil && s.auidSubs.Load() > 0 && isSyscallEventType(rr.typ) {
				s.routeSyscallRecord(rr.typ, serial, data)
			}
			continue
		}
		var r record.Seccomp
		if err := record.DecodeSeccomp(data, &r); err != nil {
			s.malformed.Add(1)
			s.chargeMalformed(data, serial, herr == nil)
			continue
		}
		if r.PID == s.pid && s.sentinels.IsMarker(r.Comm) {
			// Taken after the socket joined: every later serial must
			// arrive.
			s.gaps.Start(r.Serial, now)
			s.sentinels.Fired(r.Comm, r.Serial)
			continue
		}
		s.deliver(p, &r)
	}
	s.gaps.Expire(now)
}

func (s *Stream) deliver(p *record.Parser, r *record.Seccomp) {
	s.routesMu.RLock()
	defer s.routesMu.RUnlock()
	subs := s.bySes[r.Ses]
	if len(subs) == 0 && len(s.all) == 0 {
		return // not ours: dropped before any allocation
	}
	ev := p.Event(r)
	for _, sub := range subs {
		sub.deliver(ev)
	}
	for _, sub := range s.all {
		sub.deliver(ev)
	}
}

func trimRecord(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == 0 || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// counters is a snapshot of the stream's loss counters.
type counters struct {
	enobufs uint64
	gaps    uint64
}

func (s *Stream) counters() counters {
	return counters{enobufs: s.conn.ENOBUFS(), gaps: s.gaps.LostCount()}
}

// Stats are the stream's running totals, for diagnostics.
type Stats struct {
	Records   uint64 // records of any type received
	Malformed uint64 // type-1326 records the parser rejected
	Loss      Loss   // since the stream opened (KernelLost not included)
	RcvBuf    int    // effective socket receive buffer
}

// Stats returns the stream's totals so far.
func (s *Stream) Stats() Stats {
	c := s.counters()
	rcv, _ := s.conn.RcvBuf()
	return Stats{Records: s.records.Load(), Malformed: s.malformed.Load(), Loss: Loss{ENOBUFS: c.enobufs, SerialGaps: c.gaps}, RcvBuf: rcv}
}

// Err returns the error that stopped the reader, if any.
func (s *Stream) Err() error {
	if p := s.readErr.Load(); p != nil {
		return *p
	}
	return nil
}
