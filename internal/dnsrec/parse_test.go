package dnsrec

import (
	"errors"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestParseNameservers(t *testing.T) {
	conf := "# systemd-resolved stub\nnameserver 127.0.0.53\noptions edns0 trust-ad\n" +
		"search corp.example\nnameserver ::ffff:10.0.0.1\nnameserver fe80::1%eth0\n" +
		"nameserver resolver.example\nnameserver\n  nameserver 2001:db8::53\n"
	got := ParseNameservers([]byte(conf))
	want := []netip.AddrPort{
		netip.MustParseAddrPort("127.0.0.53:53"),
		netip.MustParseAddrPort("10.0.0.1:53"),
		netip.MustParseAddrPort("[fe80::1%eth0]:53"),
		netip.MustParseAddrPort("[2001:db8::53]:53"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("ParseNameservers = %v, want %v", got, want)
	}
}

func TestNameservers(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("options ndots:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Nameservers(empty); !errors.Is(err, ErrNoUpstream) {
		t.Errorf("no nameserver line: %v, want ErrNoUpstream", err)
	}
	if _, err := Nameservers(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestResolvConf(t *testing.T) {
	got := string(ResolvConf(netip.MustParseAddr("::ffff:127.53.0.7")))
	if strings.Count(got, "nameserver") != 1 || !strings.Contains(got, "\nnameserver 127.53.0.7\n") {
		t.Errorf("ResolvConf:\n%s", got)
	}
	if strings.Contains(got, "search") || !strings.Contains(got, "options attempts:2 timeout:5 edns0\n") {
		t.Errorf("ResolvConf options:\n%s", got)
	}
}

func TestParseHosts(t *testing.T) {
	hosts := "127.0.0.1\tlocalhost\n::1 localhost ip6-localhost # comment\n" +
		"# 10.0.0.1 commented.example\n10.0.0.2 Build.Example. build.example alias\n" +
		"::ffff:10.0.0.3 mapped.example\nnot-an-address name.example\n10.0.0.4\n" +
		"fe80::1%lo link.example\n10.0.0.2 late.example\n"
	want := map[netip.Addr][]string{
		netip.MustParseAddr("127.0.0.1"):  {"localhost"},
		netip.MustParseAddr("::1"):        {"localhost", "ip6-localhost"},
		netip.MustParseAddr("10.0.0.2"):   {"build.example", "alias", "late.example"},
		netip.MustParseAddr("10.0.0.3"):   {"mapped.example"},
		netip.MustParseAddr("fe80::1%lo"): {"link.example"},
	}
	if got := ParseHosts([]byte(hosts)); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseHosts = %v, want %v", got, want)
	}
	path := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(path, []byte(hosts), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := HostsNames(path); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("HostsNames = %v, %v", got, err)
	}
	if _, err := HostsNames(path + ".missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing hosts file: %v", err)
	}
}

func TestNsswitchHosts(t *testing.T) {
	orig := "passwd: files systemd\nhosts:          files mdns4_minimal [NOTFOUND=return] resolve [!UNAVAIL=return] dns\n" +
		"HOSTS : files\ngroup: files\nnetworks: files"
	want := "passwd: files systemd\ngroup: files\nnetworks: files\nhosts: files dns\n"
	if got := string(NsswitchHosts([]byte(orig))); got != want {
		t.Errorf("NsswitchHosts:\n%s\nwant:\n%s", got, want)
	}
}

func FuzzParseHosts(f *testing.F) {
	f.Add([]byte("127.0.0.1 localhost\n::1 ip6-localhost # c\n"))
	f.Add([]byte("fe80::1%eth0 A.B. a.b\n\x00 x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for addr, names := range ParseHosts(data) {
			if !addr.IsValid() || addr.Is4In6() {
				t.Fatalf("address %v kept", addr)
			}
			for _, n := range names {
				if n == "" || strings.HasSuffix(n, ".") || strings.ContainsFunc(n, unicode.IsSpace) || strings.Contains(n, "#") || n != strings.ToLower(n) {
					t.Fatalf("name %q kept", n)
				}
			}
			if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
				t.Fatalf("duplicate names %q", names)
			}
		}
	})
}

func FuzzParseNameservers(f *testing.F) {
	f.Add([]byte("nameserver 127.0.0.53\noptions edns0\n"))
	f.Add([]byte("nameserver ::ffff:1.2.3.4\nnameserver fe80::1%eth0\ndomain\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, ap := range ParseNameservers(data) {
			if !ap.Addr().IsValid() || ap.Addr().Is4In6() || ap.Port() != 53 {
				t.Fatalf("nameserver %v kept", ap)
			}
		}
	})
}

func FuzzNsswitchHosts(f *testing.F) {
	f.Add([]byte("passwd: files\nhosts: files resolve dns\n"))
	f.Add([]byte("hosts:\n\rhosts : x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := string(NsswitchHosts(data))
		if !strings.HasSuffix(out, "\nhosts: files dns\n") && out != "hosts: files dns\n" {
			t.Fatalf("no hosts line at the end: %q", out)
		}
		for line := range strings.Lines(strings.TrimSuffix(out, "hosts: files dns\n")) {
			key, _, found := strings.Cut(line, ":")
			if found && strings.EqualFold(strings.TrimSpace(key), "hosts") {
				t.Fatalf("a hosts line of the input kept: %q", line)
			}
		}
	})
}
