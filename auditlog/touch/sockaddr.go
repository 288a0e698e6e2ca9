package touch

import (
	"encoding/hex"
	"errors"
	"net/netip"
)

// inetSockaddr fills an AF_INET (s long enough for the port and
// address) or AF_INET6 (also the flow label, which must fit an int32)
// address from saddr's hex, as auparse read it: the port as a signed
// hex number, IPv4 octets as signed hex numbers (a bad one reads 0, a
// negative one leaves no address), IPv6 as 16 bytes, a v4-mapped one
// printed, and so kept, as IPv4.
func inetSockaddr(sa *Sockaddr, s []byte, v6 bool) error {
	if !v6 && len(s) < 16 || v6 && len(s) < 48 {
		return errors.New("invalid socket address size")
	}
	port, err := parseInt(s[4:8], 16, 32)
	if err != nil {
		return err
	}
	sa.Family, sa.Addr, sa.Port = "inet", netip.Addr{}, 0
	if port >= 0 && port <= 0xffff {
		sa.Port = uint16(port)
	}
	if !v6 {
		var ip [4]byte
		for i := range ip {
			o, _ := parseInt(s[8+2*i:10+2*i], 16, 32)
			if o < 0 {
				return nil
			}
			ip[i] = byte(o)
		}
		sa.Addr = netip.AddrFrom4(ip)
		return nil
	}
	sa.Family = "inet6"
	if _, err := parseInt(s[8:16], 16, 32); err != nil {
		return err
	}
	var ip [16]byte
	if _, err := hex.Decode(ip[:], s[16:48]); err != nil {
		return err
	}
	sa.Addr = netip.AddrFrom16(ip).Unmap()
	return nil
}

// upperHexString decodes upper-case hex up to its first NUL, as
// auparse's hexToString: odd length or another character is an error.
func upperHexString(h []byte) ([]byte, bool) {
	if len(h)%2 != 0 {
		return nil, false
	}
	out := make([]byte, 0, len(h)/2)
	for i := 0; i < len(h); i += 2 {
		hi, ok1 := upperHex(h[i])
		lo, ok2 := upperHex(h[i+1])
		if !ok1 || !ok2 {
			return nil, false
		}
		out = append(out, hi<<4|lo)
	}
	for i, c := range out {
		if c == 0 {
			return out[:i], true
		}
	}
	return out, true
}
