package netproxy

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSendmsgPassesTheCallersDescriptors: a sendmsg with an address
// and SCM_RIGHTS delivers the caller's own file, not whatever carries
// that number in the supervisor.
func TestSendmsgPassesTheCallersDescriptors(t *testing.T) {
	dir := worldDir(t)
	name := filepath.Join(dir, "d.sock")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: name}); err != nil {
		t.Fatal(err)
	}
	r := runChild(t, nil, allowAll, "passfd,"+name)
	if r.lines[0] != "ok:" {
		t.Fatalf("child: %q", r.lines[0])
	}
	buf, oob := make([]byte, 8), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
	if err != nil || string(buf[:n]) != "x" {
		t.Fatalf("received %q, %v", buf[:n], err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		t.Fatalf("control: %v %v", msgs, err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		t.Fatalf("rights: %v %v", fds, err)
	}
	defer unix.Close(fds[0])
	got := make([]byte, 8)
	k, _ := unix.Read(fds[0], got)
	if string(got[:k]) != "fdok" {
		t.Errorf("the passed descriptor holds %q, want the caller's pipe (fdok)", got[:k])
	}
	want := Access{Op: "send", Dest: Dest{Family: "unix", Unix: name}, Syscall: "sendmsg"}
	if !has(r.accesses, want) {
		t.Errorf("accesses %+v lack %+v", r.accesses, want)
	}
}

// TestLargeStreamSendIsShort: a stream sendmsg beyond maxPayload sends
// maxPayload and says so; the caller's loop sends the rest.
func TestLargeStreamSendIsShort(t *testing.T) {
	r := runChild(t, nil, allowAll, "bigsend")
	if want := "ok:262144"; r.lines[0] != want {
		t.Errorf("child: %q, want %q", r.lines[0], want)
	}
	if len(r.accesses) != 0 {
		t.Errorf("a send to the connected peer was reported: %+v", r.accesses)
	}
}

// TestBlockedSendDoesNotHoldUpTheListener: a send to the connected peer
// that blocks (a full Unix stream) leaves Serve free for the caller's
// other calls: another thread's connect is served while it waits.
func TestBlockedSendDoesNotHoldUpTheListener(t *testing.T) {
	addr, _ := tcpEcho(t, "127.0.0.1:0")
	r := runChild(t, nil, allowAll, "stall,"+addr)
	if want := "ok:ok: true"; r.lines[0] != want {
		t.Errorf("child: %q, want %q (false: the connect waited for the blocked send)", r.lines[0], want)
	}
}
