package dnsrec

import (
	"bufio"
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
)

// HostsNames reads a hosts file (normally /etc/hosts): the names each
// address has there. Lookups of these names never reach DNS, so a connect
// to one of these addresses is named from here, not from the forwarder.
//
// It returns an error, unlike the sketch: an unreadable hosts file
// must not read as "no names".
func HostsNames(path string) (map[netip.Addr][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read hosts %s: %w", path, err)
	}
	return ParseHosts(data), nil
}

// ParseHosts parses hosts(5) content: an address, then names, "#" starting
// a comment. Names are lowercased (lookups ignore case) without a trailing
// dot, each kept once per address in file order; IPv4-mapped IPv6
// addresses are stored as IPv4, the way a connect to them goes out. Lines
// whose first field is not an address are skipped, as glibc does.
func ParseHosts(data []byte) map[netip.Addr][]string {
	out := make(map[netip.Addr][]string)
	sc := bufio.NewScanner(bytes.NewReader(data))
	// A long line is the only way Scan fails; the rest of the file is
	// still worth reading, so lines are capped rather than fatal.
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		addr, err := netip.ParseAddr(fields[0])
		if err != nil {
			continue
		}
		addr = addr.Unmap()
		for _, name := range fields[1:] {
			// "a.." is no name a resolver would answer; trimming every dot keeps
			// one spelling per name.
			name = strings.ToLower(strings.TrimRight(name, "."))
			if name != "" && !slices.Contains(out[addr], name) {
				out[addr] = append(out[addr], name)
			}
		}
	}
	return out
}

// NsswitchHosts rewrites nsswitch.conf content so host lookups go to
// "files dns" only, keeping every other database's line. Bound over
// /etc/nsswitch.conf in the run's mount namespace it closes glibc's other
// ways to names: nss-resolve asks systemd-resolved over varlink and
// nss-mdns multicasts, neither passing through resolv.conf or the
// forwarder. Go's resolver reads the same line to choose between itself
// and cgo.
func NsswitchHosts(orig []byte) []byte {
	var out bytes.Buffer
	for line := range strings.Lines(string(orig)) {
		key, _, found := strings.Cut(line, ":")
		// glibc compares database names without regard to case.
		if found && strings.EqualFold(strings.TrimSpace(key), "hosts") {
			continue
		}
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteByte('\n')
		}
	}
	out.WriteString("hosts: files dns\n")
	return out.Bytes()
}
