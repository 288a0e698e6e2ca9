package kernel

import (
	"os"
	"os/exec"
	"testing"
)

func TestParseSeccompState(t *testing.T) {
	status := "Name:\tsleep\nCapBnd:\t000001ffbfffffff\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t3\n"
	st, err := parseSeccompState([]byte(status))
	want := SeccompState{Mode: 2, Filters: 3, NoNewPrivs: true, CapBnd: 0x1ffbfffffff}
	if err != nil || st != want {
		t.Errorf("got %+v, %v; want %+v", st, err, want)
	}
	for _, bad := range []string{"", "Seccomp:\t2\nSeccomp_filters:\t1\nNoNewPrivs:\t1\n", "CapBnd:\tzz\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n"} {
		if _, err := parseSeccompState([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestReadSeccompStateOfSelf(t *testing.T) {
	if _, err := ReadSeccompState(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLoginUID(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

func TestBootTimeComparesWithStartTimes(t *testing.T) {
	before, err := BootTime()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	st, err := ReadStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if st.Start() < before {
		t.Errorf("a process started after boot time %v has start %v", before, st.Start())
	}
	self, err := ReadStat(os.Getpid())
	if err != nil || self.Start() > before {
		t.Errorf("this process started at %v (%v), after %v", self.Start(), err, before)
	}
}
