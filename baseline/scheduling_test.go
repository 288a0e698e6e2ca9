package baseline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/internal/scmp"
)

// The built-in scheduling group: allowed on every arch a stack lists,
// unless a file (or WithScheduling) asks for the members exactly.
func TestSchedulingGroup(t *testing.T) {
	dir := t.TempDir()
	grouped := writeFile(t, dir, "grouped.yaml", "version: 1\nsyscalls:\n  x86_64: [read]\n  i386: [read]\n")
	exact := writeFile(t, dir, "exact.yaml", "version: 1\nscheduling: exact\nsyscalls:\n  x86_64: [read, sched_yield]\n")
	base := writeFile(t, dir, "base.yaml", "version: 1\nscheduling: exact\nsyscalls:\n  x86_64: [read]\n")
	onExactBase := writeFile(t, dir, "agent.yaml", "version: 1\nextends: [base.yaml]\nsyscalls:\n  x86_64: [write]\n")
	for _, c := range []struct {
		name  string
		files []string
		mode  scheduling.Mode // WithScheduling
		arch  scmp.Arch
		call  string
		want  bool
	}{
		{"grouped: a member", []string{grouped}, 0, scmp.X86_64, "clock_nanosleep", true},
		{"grouped: every member", []string{grouped}, 0, scmp.X86_64, "restart_syscall", true},
		{"grouped: on every listed arch", []string{grouped}, 0, scmp.I386, "clock_nanosleep_time64", true},
		{"grouped: a name the arch lacks", []string{grouped}, 0, scmp.X86_64, "clock_nanosleep_time64", false},
		{"grouped: no other call", []string{grouped}, 0, scmp.X86_64, "futex", false},
		{"grouped: not on an arch the stack lacks", []string{grouped}, 0, scmp.AArch64, "sched_yield", false},
		{"exact: an unlisted member", []string{exact}, 0, scmp.X86_64, "clock_nanosleep", false},
		{"exact: a listed member", []string{exact}, 0, scmp.X86_64, "sched_yield", true},
		{"exact from a base", []string{onExactBase}, 0, scmp.X86_64, "nanosleep", false},
		{"the flag makes a grouped file exact", []string{grouped}, scheduling.Exact, scmp.X86_64, "clock_nanosleep", false},
		{"the flag groups an exact file", []string{exact}, scheduling.Grouped, scmp.X86_64, "clock_nanosleep", true},
	} {
		p, err := LoadStack(c.files...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p = p.WithScheduling(c.mode)
		if got := p.Allows(c.arch, c.call); got != c.want {
			t.Errorf("%s: Allows(%s, %s) = %v, want %v", c.name, c.arch, c.call, got, c.want)
		}
		var listed bool
		for _, e := range p.Entries(c.arch) {
			if e.Name == c.call {
				listed = true
			}
		}
		if listed != c.want {
			t.Errorf("%s: Entries(%s) has %s: %v, want %v", c.name, c.arch, c.call, listed, c.want)
		}
	}

	p, err := LoadStack(grouped)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := p.Lookup(scmp.X86_64, "sched_yield"); !e.Builtin || e.Group != scheduling.GroupName || e.File != "" || e.Reason == "" {
		t.Errorf("built-in entry: %+v", e)
	}
	if m, at := p.SchedulingMode(); m != scheduling.Grouped || at != "" {
		t.Errorf("SchedulingMode() = %v, %q", m, at)
	}
	if p, _ := LoadStack(onExactBase); !p.SchedulingExact() {
		t.Error("a base's scheduling: exact makes the stack exact")
	} else if m, at := p.SchedulingMode(); m != scheduling.Exact || at != base+":2" {
		t.Errorf("SchedulingMode() = %v, %q, want exact at %s:2", m, at, base)
	}
	if strings.Contains(p.String(), "sched_yield") || !strings.HasSuffix(p.String(), "i386 1, x86_64 1") {
		t.Errorf("String() counts the files' entries: %s", p)
	}
}

// A member listed in the agent's file is no stale entry while the group
// is allowed, and no new syscall when seen; with exact it is both.
func TestSchedulingDiff(t *testing.T) {
	dir := t.TempDir()
	grouped := writeFile(t, dir, "g.yaml", "version: 1\nsyscalls:\n  x86_64: [read, sched_yield]\n")
	exact := writeFile(t, dir, "e.yaml", "version: 1\nscheduling: exact\nsyscalls:\n  x86_64: [read, sched_yield]\n")
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1, "clock_nanosleep": 1}})
	for _, c := range []struct {
		file        string
		new, unused []string
	}{{grouped, nil, nil}, {exact, []string{"clock_nanosleep"}, []string{"sched_yield"}}} {
		p, err := LoadStack(c.file)
		if err != nil {
			t.Fatal(err)
		}
		d := Diff(p, o)
		if got := findingNames(d.New); !slices.Equal(got, c.new) {
			t.Errorf("%s: new %v, want %v", c.file, got, c.new)
		}
		if got := findingNames(d.Unused); !slices.Equal(got, c.unused) {
			t.Errorf("%s: unused %v, want %v", c.file, got, c.unused)
		}
	}
}

func findingNames(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Syscall)
	}
	return out
}

// Record leaves the members out while they are grouped (an existing
// file's listed ones too), writes them with exact, and keeps or sets the
// file's key.
func TestSchedulingRecord(t *testing.T) {
	o := obs("a", 1, map[scmp.Arch]map[string]uint64{scmp.X86_64: {"read": 1, "clock_nanosleep": 2, "sched_yield": 1}})
	for _, c := range []struct {
		name, old string
		mode      scheduling.Mode
		want      string
	}{
		{"new file", "", 0, "syscalls:\n  x86_64:\n    - read\n"},
		{"listed members go", "version: 1\nagent: a\nsyscalls:\n  x86_64: [nanosleep, read, sched_yield]\n", 0, "syscalls:\n  x86_64:\n    - read\n"},
		{"exact file", "version: 1\nagent: a\nscheduling: exact\nsyscalls:\n  x86_64: [read]\n", 0,
			"scheduling: exact\nsyscalls:\n  x86_64:\n    - clock_nanosleep\n    - read\n    - sched_yield\n"},
		{"the flag makes it exact", "", scheduling.Exact,
			"scheduling: exact\nsyscalls:\n  x86_64:\n    - clock_nanosleep\n    - read\n    - sched_yield\n"},
		{"a group's members go, and the group when empty", "version: 1\nagent: a\ngroups:\n  waits:\n    reason: r\n    syscalls:\n      x86_64: [clock_nanosleep]\nsyscalls:\n  x86_64: [read]\n", 0,
			"syscalls:\n  x86_64:\n    - read\n"},
		{"a group's members go, and the group when empty", "version: 1\nagent: a\ngroups:\n  waits:\n    reason: r\n    syscalls:\n      x86_64: [clock_nanosleep]\nsyscalls:\n  x86_64: [read]\n", 0,
			"syscalls:\n  x86_64:\n    - read\n"},
		{"the flag groups an exact file", "version: 1\nagent: a\nscheduling: exact\nsyscalls:\n  x86_64: [read, sched_yield]\n", scheduling.Grouped,
			"syscalls:\n  x86_64:\n    - read\n"},
	} {
		path := filepath.Join(t.TempDir(), "a.yaml")
		if c.old != "" {
			if err := os.WriteFile(path, []byte(c.old), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := WriteRecorded(path, o, RecordOptions{Scheduling: c.mode}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		data, _ := os.ReadFile(path)
		if !strings.HasSuffix(string(data), c.want) {
			t.Errorf("%s: wrote\n%s\nwant it to end\n%s", c.name, data, c.want)
		}
		if !strings.Contains(c.want, "scheduling: exact") && strings.Contains(string(data), "scheduling:") {
			t.Errorf("%s: wrote a scheduling key:\n%s", c.name, data)
		}
	}
}

func TestSchedulingKey(t *testing.T) {
	_, err := ParseDocument("a.yaml", []byte("version: 1\nscheduling: loose\nsyscalls:\n  x86_64: [read]\n"))
	if err == nil || !strings.Contains(err.Error(), "a.yaml:2:") || !strings.Contains(err.Error(), "exact") {
		t.Errorf("a bad value names the file, the line and the choices: %v", err)
	}
	in := "# h\n\nversion: 1\nagent: a\nscheduling: exact\nsyscalls:\n  x86_64:\n    - read\n"
	d, err := ParseDocument("a.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if d.Scheduling != scheduling.Exact || string(d.Format()) != in {
		t.Errorf("round trip: %v\n%s", d.Scheduling, d.Format())
	}
}

// The group's files: a read of the CPU list is allowed by every gated
// stack unless it is exact, never another access, and never named as the
// closest entry of an unrelated refusal.
func TestSchedulingFiles(t *testing.T) {
	dir := t.TempDir()
	grouped := writeFile(t, dir, "grouped.yaml", "version: 1\nfiles:\n  read:\n    - /etc/hostname\nsyscalls:\n  x86_64: [read]\n")
	exact := writeFile(t, dir, "exact.yaml", "version: 1\nscheduling: exact\nfiles:\n  read:\n    - /etc/hostname\nsyscalls:\n  x86_64: [read]\n")
	load := func(path string) *Profile {
		t.Helper()
		p, err := LoadStack(path)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	online := "/sys/devices/system/cpu/online"
	for _, c := range []struct {
		name string
		p    *Profile
		path string
		op   FileOp
		want bool
	}{
		{"grouped: read of the online CPUs", load(grouped), online, FileRead, true},
		{"grouped: read of the possible CPUs", load(grouped), "/sys/devices/system/cpu/possible", FileRead, true},
		{"grouped: no write", load(grouped), online, FileWrite, false},
		{"grouped: no other sysfs file", load(grouped), "/sys/devices/system/cpu/cpu0/online", FileRead, false},
		{"exact: not allowed", load(exact), online, FileRead, false},
		{"the flag makes it exact", load(grouped).WithScheduling(scheduling.Exact), online, FileRead, false},
	} {
		if got := c.p.FileAllows(FileContext{}, c.path, c.op); got != c.want {
			t.Errorf("%s: FileAllows(%s, %s) = %v, want %v", c.name, c.path, c.op, got, c.want)
		}
	}
	m := load(grouped).FileMatcher(FileContext{})
	if got := m.Explain("/sys/devices/system/cpu/cpu0/online", FileRead); got != "not in the baseline" {
		t.Errorf("Explain names a built-in entry: %s", got)
	}
	if got := m.Explain(online, FileWrite); strings.Contains(got, online) {
		t.Errorf("Explain of a write names the built-in read: %s", got)
	}
}
