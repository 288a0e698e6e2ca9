package netproxy

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkConnect: one socket+connect+close round to a loopback
// listener, bare (this process, no filter) and proxied (a held child:
// the connect goes through Serve). The child times its own rounds and
// reports them as child-ns/op; ns/op of "proxied" includes the child's
// start.
func BenchmarkConnect(b *testing.B) {
	addr, _ := tcpEcho(b, "127.0.0.1:0")
	b.Run("bare", func(b *testing.B) {
		sa := inet(addr)
		for b.Loop() {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				b.Fatal(err)
			}
			if err := unix.Connect(fd, sa); err != nil {
				b.Fatal(err)
			}
			unix.Close(fd)
		}
	})
	b.Run("proxied", func(b *testing.B) {
		r := runChild(b, nil, allowAll, fmt.Sprintf("connectn,%s,%d", addr, b.N))
		var ns float64
		if _, err := fmt.Sscanf(r.lines[0], "ok:%g", &ns); err != nil {
			b.Fatalf("child said %q", r.lines[0])
		}
		b.ReportMetric(ns, "child-ns/op")
	})
}
