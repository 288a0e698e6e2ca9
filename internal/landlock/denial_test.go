package landlock

import (
	"bufio"
	"bytes"
	"errors"
	"net/netip"
	"os"
	"reflect"
	"strconv"
	"testing"
)

// The records of TestDenialAuditLive -update, as the kernel wrote them.
func TestParseLiveRecords(t *testing.T) {
	f, err := os.Open("testdata/landlock-live.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var denials []Denial
	var domains []DomainRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		typ, data, _ := bytes.Cut(sc.Bytes(), []byte(" "))
		n, _ := strconv.Atoi(string(typ))
		switch n {
		case AuditAccess:
			d, err := ParseAccess(data)
			if err != nil {
				t.Fatal(err)
			}
			denials = append(denials, d)
		case AuditDomain:
			d, err := ParseDomain(data)
			if err != nil {
				t.Fatal(err)
			}
			domains = append(domains, d)
		}
	}
	if len(denials) != 1 || len(domains) != 1 {
		t.Fatalf("%d denials, %d domain records", len(denials), len(domains))
	}
	want := Denial{Serial: 23451809, Domain: "10e0620fc", Blockers: []string{"fs.read_file"},
		Path: "/tmp/TestDenialAuditLive855211823/001/secret", Dev: "vda", Ino: 10232905}
	if !reflect.DeepEqual(denials[0], want) {
		t.Errorf("denial\n got %+v\nwant %+v", denials[0], want)
	}
	wantDomain := DomainRecord{Serial: 23451808, Domain: "10e0620fc", Status: "allocated", Mode: "enforcing",
		PID: 26412, Exe: "/tmp/go-build1986496287/b001/landlock.test", Comm: "landlock.test"}
	if !reflect.DeepEqual(domains[0], wantDomain) {
		t.Errorf("domain\n got %+v\nwant %+v", domains[0], wantDomain)
	}
}

func TestParseAccessForms(t *testing.T) {
	cases := map[string]Denial{
		// The kernel's documentation example: a link refused twice.
		`audit(1.2:7): domain=195ba459b blockers=fs.make_reg,fs.refer path="/usr/local" dev="vda2" ino=365`: {Serial: 7,
			Domain: "195ba459b", Blockers: []string{"fs.make_reg", "fs.refer"}, Path: "/usr/local", Dev: "vda2", Ino: 365},
		// A name with a space is hex; a removal names the entry.
		`audit(1.2:8): domain=1 blockers=fs.remove_file name=6120622E747874 dev="vda" ino=3`: {Serial: 8,
			Domain: "1", Blockers: []string{"fs.remove_file"}, Path: "a b.txt", Dev: "vda", Ino: 3},
		// TCP: a connect's destination, a bind's local address.
		`audit(1.2:9): domain=ff blockers=net.connect_tcp daddr=127.0.0.1 dest=443`: {Serial: 9,
			Domain: "ff", Blockers: []string{"net.connect_tcp"}, Addr: netip.MustParseAddr("127.0.0.1"), Port: 443},
		`audit(1.2:10): domain=ff blockers=net.bind_tcp saddr=::1 src=8080`: {Serial: 10,
			Domain: "ff", Blockers: []string{"net.bind_tcp"}, Addr: netip.MustParseAddr("::1"), Port: 8080},
		`audit(1.2:11): domain=ff blockers=net.bind_tcp src=8080`: {Serial: 11,
			Domain: "ff", Blockers: []string{"net.bind_tcp"}, Port: 8080},
		// Fields of newer kernels are ignored.
		`audit(1.2:12): domain=ff blockers=fs.read_file path="/x" quiet=1`: {Serial: 12,
			Domain: "ff", Blockers: []string{"fs.read_file"}, Path: "/x"},
	}
	for line, want := range cases {
		got, err := ParseAccess([]byte(line))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseAccess(%s)\n got %+v, %v\nwant %+v", line, got, err, want)
		}
	}
	d, err := ParseDomain([]byte(`audit(1.2:10): domain=195ba459b status=deallocated denials=3`))
	if err != nil || d.Status != "deallocated" || d.Denials != 3 {
		t.Errorf("deallocated record: %+v, %v", d, err)
	}
}

func TestParseMalformed(t *testing.T) {
	for _, line := range []string{
		``,
		`domain=1 blockers=fs.read_file`,
		`audit(1.2:x): domain=1 blockers=fs.read_file`,
		`audit(1.2:3): blockers=fs.read_file`,
		`audit(1.2:3): domain=zz blockers=fs.read_file`,
		`audit(1.2:3): domain=1 blockers=fs.read_file path="/a`,
		`audit(1.2:3): domain=1 blockers=fs.read_file path=4`,
		`audit(1.2:3): domain=1 blockers=fs.read_file ino=-1`,
		`audit(1.2:3): domain=1 blockers`,
		`audit(1.2:3): domain=1 blockers=net.connect_tcp daddr=1.2.3 dest=80`,
		`audit(1.2:3): domain=1 blockers=net.connect_tcp daddr=1.2.3.4 dest=65536`,
	} {
		if _, err := ParseAccess([]byte(line)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseAccess(%q) = %v, want ErrMalformed", line, err)
		}
	}
	if _, err := ParseDomain([]byte(`audit(1.2:3): domain=1 status=allocated pid=99999999999`)); !errors.Is(err, ErrMalformed) {
		t.Errorf("pid overflow: %v", err)
	}
}

func FuzzParseRecords(f *testing.F) {
	f.Add([]byte(`audit(1795779504.999:23451809): domain=10e0620fc blockers=fs.read_file path="/tmp/x" dev="vda" ino=10232905`))
	f.Add([]byte(`audit(1795779504.999:23451808): domain=10e0620fc status=allocated mode=enforcing pid=26412 uid=0 exe="/x" comm="c"`))
	f.Add([]byte(`audit(1.2:8): domain=1 blockers=fs.remove_file name=6120622E747874 dev="vda" ino=3`))
	f.Add([]byte(`audit(1795788642.991:42060411): domain=10e06316d blockers=net.connect_tcp daddr=127.0.0.1 dest=34227`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if d, err := ParseAccess(data); err == nil && (d.Domain == "" || len(d.Blockers) == 0) {
			t.Fatalf("accepted without domain or blockers: %+v", d)
		} else if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not match ErrMalformed", err)
		}
		if d, err := ParseDomain(data); err == nil && (d.Domain == "" || d.Status == "") {
			t.Fatalf("accepted without domain or status: %+v", d)
		} else if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not match ErrMalformed", err)
		}
	})
}
