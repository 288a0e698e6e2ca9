package touch

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/elastic/go-libaudit/v2/auparse"
)

// auparseName names arch and call from auparse's tables, so that the
// differential tests compare the parsers alone.
func auparseName(auditArch uint32, nr int64) (arch, name string, ok bool) {
	arch = auparse.AuditArch(auditArch).String()
	name, ok = auparse.AuditSyscalls[arch][int(nr)]
	return arch, name, ok
}

type assembled struct {
	events    []Event
	pushErrs  []bool
	malformed uint64
}

func (a assembled) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "malformed %d, push errors %v\n", a.malformed, a.pushErrs)
	for _, ev := range a.events {
		fmt.Fprintf(&b, "%+v addr=%+v\n", ev, ev.Addr)
	}
	return b.String()
}

// bothParsers runs the records through the reference (auparse) and the
// Assembler, the latter naming calls from auparse's tables unless scmp.
func bothParsers(recs []rawRecord, scmpNames bool) (ref, got assembled) {
	r := newRefAssembler(func(ev Event) { ref.events = append(ref.events, ev) })
	a := NewAssembler(func(ev Event) { got.events = append(got.events, ev) })
	if !scmpNames {
		a.d.syscallName = auparseName
	}
	for _, rec := range recs {
		ref.pushErrs = append(ref.pushErrs, r.Push(rec.Type, []byte(rec.Data)) != nil)
		got.pushErrs = append(got.pushErrs, a.Push(rec.Type, []byte(rec.Data)) != nil)
	}
	r.Close()
	a.Close()
	ref.malformed, got.malformed = r.Malformed(), a.Malformed()
	return ref, got
}

func TestAssembleMatchesAuparseOnCaptured(t *testing.T) {
	_, _, recs := capturedLog(t)
	for _, scmpNames := range []bool{false, true} {
		ref, got := bothParsers(recs, scmpNames)
		if len(ref.events) < 20 {
			t.Fatalf("reference: only %d events", len(ref.events))
		}
		if !reflect.DeepEqual(ref, got) {
			t.Errorf("scmp names %v: events differ\nauparse:\n%s\nnew:\n%s", scmpNames, ref, got)
		}
	}
}

// parseLines reads "TYPE record" lines; other lines are skipped.
func parseLines(in string) []rawRecord {
	var recs []rawRecord
	for line := range strings.SplitSeq(in, "\n") {
		typ, data, _ := strings.Cut(line, " ")
		n, err := strconv.ParseUint(typ, 10, 16)
		if err != nil {
			continue
		}
		recs = append(recs, rawRecord{uint16(n), data})
	}
	return recs
}

// differentialSeeds are records the captured run has no example of.
var differentialSeeds = []string{
	// failed call: auparse names the errno, the Event keeps -1
	"1300 audit(1.1:7): arch=c000003e syscall=257 success=no exit=-13 a0=ffffff9c a1=0 a2=1 a3=0 items=1 ppid=1 pid=2 auid=3 uid=0 ses=4 comm=\"x\" exe=\"/x\"\n1302 audit(1.1:7): item=0 name=2F6574632F736861646F77 inode=5 dev=fe:00 mode=0100640 nametype=NORMAL\n1320 audit(1.1:7): ",
	// unset session, bad exit on a success, exe missing: malformed
	"1300 audit(1.1:8): arch=c000003e syscall=2 success=yes exit=-2 a0=0 a1=0 a2=0 a3=0 ppid=1 pid=2 auid=4294967295 uid=0 ses=4294967295 comm=\"x\" exe=(null)\n1320 audit(1.1:8): ",
	// a comm ending in a backslash swallows the next field in auparse's regexp
	"1300 audit(1.1:9): arch=c000003e syscall=59 success=yes exit=0 a0=1 a1=2 a2=3 a3=4 ppid=1 pid=2 auid=3 uid=0 ses=4 comm=\"a\\\" exe=\"/bin/b\" key=(null)\n1307 audit(1.1:9): cwd=2F746D702F6120620A\n1320 audit(1.1:9): ",
	// sockaddrs: inet6 with flow, v4-mapped, unix, netlink, unknown, bad
	"1300 audit(1.1:10): arch=c000003e syscall=42 success=yes exit=0 a0=3 a1=0 a2=1c a3=0 ppid=1 pid=2 auid=3 uid=0 ses=4 comm=\"x\" exe=\"/x\"\n1306 audit(1.1:10): saddr=0A000050000000010000000000000000000000000000FFFF7F000001\n1320 audit(1.1:10): ",
	"1300 audit(1.1:11): arch=40000003 syscall=102 success=yes exit=0 a0=3 a1=0 a2=1c a3=0 ppid=1 pid=2 auid=3 uid=0 ses=4 comm=\"x\" exe=\"/x\"\n1306 audit(1.1:11): saddr=01002F746D702F736F636B00\n1306 audit(1.1:11): saddr=100000000000 port=7 addr=1.2.3.4\n1306 audit(1.1:11): saddr=2A00 path=/p\n1320 audit(1.1:11): ",
	"1300 audit(1.1:12): arch=c00000b7 syscall=56 success=yes exit=3 a0=ffffff9c a1=0 a2=241 a3=1b6 ppid=1 pid=2 auid=3 uid=0 ses=4 comm=\"x\" exe=\"/x\"\n1337 audit(1.1:12): oflag=0100 mode=0 resolve=0x0\n1306 audit(1.1:12): saddr=0200zz\n1320 audit(1.1:12): ",
	// out of order, no EOE, a LOGIN record, msg= nesting, an x32 call
	"1302 audit(1.1:14): item=0 name=\"b\" nametype=CREATE\n1300 audit(1.1:13): arch=c000003e syscall=1073742081 success=yes exit=3 a0=ffffff9c a1=0 a2=0 a3=0 ppid=1 pid=2 auid=3 uid=0 ses=4 comm=\"x\" exe=\"/x\"\n1006 audit(1.1:15): pid=2 uid=0 old-auid=4294967295 auid=3 tty=(none) old-ses=4294967295 ses=4 res=1\n1300 audit(1.1:14): msg='arch=c000003e syscall=82 success=yes exit=0 a0=1 a1=2 a2=3 a3=4' ppid=1 pid=2 auid=3 uid=0 ses=4 comm=x exe=2F78\n1320 audit(1.1:14): ",
	// headers auparse refuses or reads oddly
	"1300 audit(1.1:99999999999): \n1302 audit(1.1:16)\n1300 x(1.1:16) arch=c000003e syscall=0 exe=\"/x\" a0=0 a1=0 a2=0 a3=0 ppid=1 pid=2 auid=3 uid=0 ses=4 exit=0\n",
}

// FuzzAssembleMatchesAuparse holds the Assembler to the reference on any
// input: the same Events, the same records refused, the same count of
// malformed events.
func FuzzAssembleMatchesAuparse(f *testing.F) {
	addCapturedSeeds(f)
	for _, s := range differentialSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ref, got := bothParsers(parseLines(in), false)
		if !reflect.DeepEqual(ref, got) {
			t.Errorf("differ\nauparse:\n%s\nnew:\n%s", ref, got)
		}
	})
}

func TestAssembleMatchesAuparseOnSeeds(t *testing.T) {
	for i, s := range differentialSeeds {
		ref, got := bothParsers(parseLines(s), false)
		if !reflect.DeepEqual(ref, got) {
			t.Errorf("seed %d differs\nauparse:\n%s\nnew:\n%s", i, ref, got)
		}
	}
}

// kvRegex is auparse's field regexp, which scanFields reads as.
var kvRegex = regexp.MustCompile(`([a-z0-9_-]+)=((?:[^"'\s]+)|'(?:\\'|[^'])*'|"(?:\\"|[^"])*")`)

func regexFields(msg string, out *[]string) {
	for _, m := range kvRegex.FindAllStringSubmatch(msg, -1) {
		if m[1] == "msg" {
			if v := strings.Trim(m[2], `'" `); !dropped([]byte(v)) {
				regexFields(v, out)
			}
			continue
		}
		*out = append(*out, m[1]+"="+m[2])
	}
}

func FuzzScanFieldsMatchesRegexp(f *testing.F) {
	for _, s := range differentialSeeds {
		f.Add(s)
	}
	f.Add(`a="x\" b="y\"" c='d\' e' f=g'h i=`)
	f.Fuzz(func(t *testing.T, msg string) {
		var want, got []string
		regexFields(msg, &want)
		scanFields([]byte(msg), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%q:\nregexp %q\nscan   %q", msg, want, got)
		}
	})
}

func TestErrnoNamedIsAuparseTable(t *testing.T) {
	for n := int64(-5); n < 400; n++ {
		_, named := auparse.AuditErrnoToName[int(n)]
		if errnoNamed(n) != named {
			t.Errorf("errno %d: named %v, auparse %v", n, errnoNamed(n), named)
		}
	}
}
