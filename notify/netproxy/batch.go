package netproxy

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
)

// sendBatch sends a sendmmsg's messages one by one as the kernel's
// __sys_sendmmsg does: each as a sendmsg, its byte count written to
// its msg_len, up to the first that fails; the answer is the number
// sent, or that failure's errno if none was. stop is the errno of the
// message after reqs (0: none, the batch ended there).
//
// The messages with an address are asked about together before the
// first is sent (decide runs on Serve's goroutine, which must not wait
// for sends), in order up to the first refusal, which fails as a
// refused sendmsg does (EACCES). MSG_BATCH, which the kernel sets on
// all messages but the last, is left out: a hint to defer transmission
// that a few socket types (packet sockets, tun) take.
func (c *call) sendBatch(reqs []request, stop unix.Errno, dirs *callerDirs) (outcome, error) {
	if len(reqs) == 0 {
		// vlen 0: the kernel still looks the socket up.
		if _, err := unix.GetsockoptInt(c.sock, unix.SOL_SOCKET, unix.SO_TYPE); err != nil {
			return fail(errnoOf(err)), nil
		}
		return outcome{}, nil
	}
	raws := make([][]byte, 0, len(reqs))
	var accesses []Access
	for _, req := range reqs {
		raw, dest, errno := c.destination(req, dirs)
		if errno != 0 {
			stop = errno
			break
		}
		raws = append(raws, raw)
		if req.sa != nil {
			accesses = append(accesses, Access{Op: "send", Dest: dest, Syscall: c.name})
		}
	}
	allowed := 0
	if len(accesses) > 0 {
		allowed = c.ask(accesses...)
	} else {
		c.release()
	}
	sent, asked := 0, 0
	for i, raw := range raws {
		if reqs[i].sa != nil {
			if asked == allowed {
				stop = unix.EACCES
				break
			}
			asked++
		}
		o, _ := c.send(reqs[i], raw)
		if o.errno != 0 {
			stop = o.errno
			break
		}
		// A message sent whose msg_len cannot be written is not
		// counted, and ends the batch, as in the kernel.
		if errno := c.writeLen(i, uint32(o.val)); errno != 0 {
			stop = errno
			break
		}
		sent++
		if int(o.val) < reqs[i].total {
			break // a short stream send ends the batch
		}
	}
	if sent > 0 || stop == 0 {
		return outcome{val: int64(sent)}, nil
	}
	return fail(stop), nil
}

// msgLenOffset is where msg_len sits in struct mmsghdr.
const msgLenOffset = unsafe.Offsetof(unix.Mmsghdr{}.Len)

// writeLen writes n to message i's msg_len in the caller's array. The
// write is done by a goroutine of the supervisor's: this thread has
// the caller's credentials by now, with which process_vm_writev may
// be refused (a non-dumpable caller, Yama). The caller is checked to
// be still waiting just before: only then is its pid its own (a dead
// caller makes the batch end here; its answer finds no task).
func (c *call) writeLen(i int, n uint32) unix.Errno {
	addr := c.notif.Data.Args[1] + uint64(i)*unix.SizeofMmsghdr + uint64(msgLenOffset)
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], n)
	done := make(chan unix.Errno)
	go func() {
		if !kernel.NotifIDValid(c.listener, c.notif.ID) {
			done <- unix.ESRCH
			return
		}
		if err := kernel.WriteMemBytes(int(c.notif.PID), addr, b[:]); err != nil {
			done <- unix.EFAULT
			return
		}
		done <- 0
	}()
	return <-done
}
