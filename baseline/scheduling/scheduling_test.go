package scheduling

import (
	"slices"
	"strings"
	"testing"
)

func TestMembers(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"clock_nanosleep", true}, {"clock_nanosleep_time64", true}, {"nanosleep", true},
		{"restart_syscall", true}, {"sched_yield", true}, {"getpid", true},
		// Go's preemption signal is a member; tgkill with any other
		// signal is not.
		{"tgkill(SIGURG)", true}, {"tgkill(SIGTERM)", false}, {"tgkill(SIGKILL)", false},
		// Calls with an effect outside the caller stay exact: a futex
		// wakes another process's waiter on shared memory, madvise
		// (MADV_REMOVE) frees a shared file's pages, tgkill signals
		// (argument blind: any signal).
		{"futex", false}, {"madvise", false}, {"tgkill", false}, {"rseq", false},
		{"sched_setaffinity", false}, {"", false}, {"sched_yield(x)", false},
	} {
		if got := Is(c.name); got != c.want {
			t.Errorf("Is(%q) = %v, want %v", c.name, got, c.want)
		}
	}
	if !slices.IsSorted(Names()) || len(Names()) != len(Members) {
		t.Errorf("Names() = %v", Names())
	}
	for _, m := range Members {
		if m.Varies == "" || m.Confined == "" || m.Effect == "" {
			t.Errorf("%s: every member says why it varies, why it is confined, and what it does", m.Name)
		}
		if r := Reason(m.Name); !strings.Contains(r, "scheduling") || !strings.HasSuffix(r, m.Effect) {
			t.Errorf("Reason(%s) = %q", m.Name, r)
		}
	}
	if Reason("read") != "" {
		t.Errorf("Reason of a non-member: %q", Reason("read"))
	}
}

func TestSplit(t *testing.T) {
	members, others := Split([]string{"sched_yield", "read", "clock_nanosleep", "ptrace"})
	if !slices.Equal(members, []string{"sched_yield", "clock_nanosleep"}) || !slices.Equal(others, []string{"read", "ptrace"}) {
		t.Errorf("Split: %v, %v", members, others)
	}
	if m, o := Split(nil); m != nil || o != nil {
		t.Errorf("Split(nil): %v, %v", m, o)
	}
}

func TestParseMode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mode
		err  bool
	}{{"grouped", Grouped, false}, {"exact", Exact, false}, {"Exact", 0, true}, {"", 0, true}, {"off", 0, true}} {
		got, err := ParseMode(c.in)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("ParseMode(%q) = %v, %v", c.in, got, err)
		}
		if err == nil && got.String() != c.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	if _, err := ParseMode("off"); err == nil || !strings.Contains(err.Error(), "grouped") || !strings.Contains(err.Error(), "exact") {
		t.Errorf("the error names the choices: %v", err)
	}
}
