package record

import "testing"

func TestSessionOfUnparseableRecords(t *testing.T) {
	for _, c := range []struct {
		rec  string
		ses  uint32
		want bool
	}{
		{`audit(1795313844.973:22): auid=0 uid=0 gid=0 ses=5 pid=1 comm="negnr" exe="/tmp/negnr" sig=0 arch=c000003e syscall=-1 compat=0 ip=0x1 code=0x7ffc0000`, 5, true},
		{`audit(1795313844.973:22): auid=4294967295 uid=0 gid=0 ses=4294967295 subj=unconfined pid=1 comm=`, 4294967295, true},
		{`audit(1795313844.973:22): auid=0 uid=0 gid=0 ses=5`, 5, true},
		// Only the kernel's own leading fields count: a ses= anywhere
		// else (a future layout, a label) is no attribution.
		{`audit(1795313844.973:22): uid=0 ses=5 pid=1`, 0, false},
		{`audit(1795313844.973:22): auid=0 uid=0 gid=0 subj=x ses=5`, 0, false},
		{`audit(1795313844.973:22): auid=0 uid=0 gid=0 ses=5x pid=1`, 0, false},
		{`audit(1795313844.973:22): auid=0 uid=0 gid=0 ses=99999999999 pid=1`, 0, false},
		{`audit(1795313844.973:22): auid=0 uid=0 gid=0 ses=`, 0, false},
		{`ses=5`, 0, false},
	} {
		ses, ok := Session([]byte(c.rec))
		if ok != c.want || ses != c.ses {
			t.Errorf("Session(%q) = %d, %v; want %d, %v", c.rec, ses, ok, c.ses, c.want)
		}
	}
}
