package netproxy

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseSockaddr(t *testing.T) {
	in4 := rawInet(inet("127.0.0.2:9"))
	in6 := make([]byte, unix.SizeofSockaddrInet6)
	binary.NativeEndian.PutUint16(in6, unix.AF_INET6)
	binary.BigEndian.PutUint16(in6[2:], 443)
	copy(in6[8:], netip.MustParseAddr("::1").AsSlice())
	mapped := slices.Clone(in6)
	copy(mapped[8:], netip.MustParseAddr("::ffff:127.0.0.2").AsSlice())
	abstract := append(unixSockaddr("")[:2:2], 0, 'b', '\n')
	for _, tc := range []struct {
		raw  []byte
		want string
	}{
		{in4[:], "127.0.0.2:9"},
		{in6, "[::1]:443"},
		{mapped, "127.0.0.2:443"},
		{in6[:24], "[::1]:443"},
		{unixSockaddr("rel/s.sock"), "unix:rel/s.sock"},
		{abstract, `unix:@b\n`},
		{[]byte{16, 0, 1, 2}, "af16"},
	} {
		sa, err := parseSockaddr(tc.raw)
		if err != nil || sa.dest.String() != tc.want {
			t.Errorf("parse %x: %q, %v; want %q", tc.raw, sa.dest.String(), err, tc.want)
		}
	}
	for _, short := range [][]byte{nil, {2}, in4[:8], in6[:23]} {
		if _, err := parseSockaddr(short); err != unix.EINVAL {
			t.Errorf("parse %x: %v, want EINVAL", short, err)
		}
	}
}

func FuzzParseSockaddr(f *testing.F) {
	in4 := rawInet(inet("127.0.0.1:80"))
	f.Add(in4[:])
	f.Add(unixSockaddr("/run/docker.sock"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		sa, err := parseSockaddr(raw)
		if err == nil {
			_ = sa.dest.String()
		}
	})
}

func TestUsedAddr(t *testing.T) {
	a := netip.MustParseAddr
	none := netip.Addr{}
	for _, tc := range []struct {
		dst, bound netip.Addr
		want       string
	}{
		{a("10.0.0.1"), a("127.0.0.2"), "10.0.0.1"},
		{a("::ffff:10.0.0.1"), none, "10.0.0.1"},
		{a("0.0.0.0"), a("127.0.0.2"), "127.0.0.2"},
		{a("0.0.0.0"), a("192.168.1.5"), "192.168.1.5"},
		{a("0.0.0.0"), none, "127.0.0.1"},
		{a("0.0.0.0"), a("0.0.0.0"), "127.0.0.1"},
		{a("::ffff:0.0.0.0"), a("::ffff:127.0.0.2"), "127.0.0.2"},
		{a("::ffff:0.0.0.0"), a("::"), "127.0.0.1"},
		{a("::"), a("::1"), "::1"},
		{a("::"), a("fe80::1"), "::1"},
		{a("::"), none, "::1"},
		{a("::"), a("::ffff:127.0.0.2"), "127.0.0.1"},
	} {
		if got := UsedAddr(tc.dst, tc.bound); got.String() != tc.want {
			t.Errorf("UsedAddr(%v, %v) = %v, want %s", tc.dst, tc.bound, got, tc.want)
		}
	}
}
