package kernel

import (
	"os"
	"strings"
	"testing"
)

func TestParseStatTrickyComm(t *testing.T) {
	tail := " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 20 21\n"
	for _, comm := range []string{"bash", "a) b (c", "(x)", ")", "", "two  spaces", "S 1 2 3)"} {
		st, err := parseStat([]byte("1234 (" + comm + ")" + tail))
		if err != nil {
			t.Errorf("comm %q: %v", comm, err)
			continue
		}
		if st.Comm != comm || st.State != 'S' || st.StartTicks != 424242 {
			t.Errorf("comm %q: parsed %+v", comm, st)
		}
	}
	for _, bad := range []string{"", "1234 bash S 1", "1234 (bash) S 1 2 3", "1234 (bash)" + strings.Replace(tail, "424242", "x", 1), "1234 (a) SS" + tail[2:]} {
		if st, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed: %+v", bad, st)
		}
	}
}

func TestReadStatOfSelf(t *testing.T) {
	st, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	if st.Comm != strings.TrimSpace(string(comm)) || st.StartTicks == 0 || st.Start() <= 0 {
		t.Errorf("stat %+v; comm %q", st, comm)
	}
}
