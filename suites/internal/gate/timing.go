package gate

// SchedulingCalls are the syscalls whose appearance in the suites' real
// agents depends on scheduling alone: Python's subprocess wait with a
// timeout sleeps (clock_nanosleep) only when the child has not been
// reaped at its first look, node's worker threads yield (sched_yield)
// only when they contend, and a sleep a signal interrupts resumes
// through restart_syscall. Each backend slows threads differently, so
// one backend may show such a call in every run of a loaded machine and
// the other in none. Specs that compare runs (two backends, a fresh
// recording and its check) treat a difference made only of these as
// timing, never a missed or invented call; the fault suite's "explicit
// call" spec shows that both backends see sched_yield and
// clock_nanosleep when a program makes them for certain.
var SchedulingCalls = map[string]bool{"clock_nanosleep": true, "nanosleep": true, "sched_yield": true, "restart_syscall": true}

// OnlyScheduling says every name in names is one of SchedulingCalls
// (true for none).
func OnlyScheduling(names []string) bool {
	for _, n := range names {
		if !SchedulingCalls[n] {
			return false
		}
	}
	return true
}
