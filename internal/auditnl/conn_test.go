package auditnl

import (
	"errors"
	"testing"
	"time"

	libaudit "github.com/elastic/go-libaudit/v2"
	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/testutil"
)

// go-libaudit's client drives a Conn: a status request gets its reply.
func TestControlConnAnswersStatus(t *testing.T) {
	testutil.RequireAudit(t)
	c, err := Dial(Config{ReplyWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	client := &libaudit.AuditClient{Netlink: c}
	defer client.Close()
	st, err := client.GetStatus()
	if err != nil {
		t.Fatal(err)
	}
	// Settings may be anything (a fault test elsewhere may have forced
	// them); the kernel's feature bitmap is never empty on an audit kernel.
	if st.FeatureBitmap == 0 {
		t.Errorf("status %+v: an empty reply?", st)
	}
}

// A batched multicast reader (recvmmsg through internal/kernel) returns a
// datagram or, within its read timeout, EAGAIN; after Close, ErrClosed.
func TestBatchedReaderTimesOutAndCloses(t *testing.T) {
	testutil.RequireAudit(t)
	c, err := Dial(Config{Groups: GroupReadLog, RcvBuf: 1 << 20, ReadTimeout: 20 * time.Millisecond, Batch: 8})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := c.ReceiveRaw(false); err != nil && !errors.Is(err, unix.EAGAIN) {
		t.Errorf("receive: %d bytes, %v; want a datagram or EAGAIN", n, err)
	} else if err == nil && n < unix.NLMSG_HDRLEN {
		t.Errorf("short datagram: %d bytes", n)
	}
	if rcv, err := c.RcvBuf(); err != nil || rcv < 1<<20 {
		t.Errorf("receive buffer %d, %v; want at least the 1 MiB asked for", rcv, err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReceiveRaw(false); !errors.Is(err, ErrClosed) {
		t.Errorf("receive after close: %v, want ErrClosed", err)
	}
}
