package distro_test

import (
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/suites/internal/gate"
)

var outsideRow = regexp.MustCompile(`(?m)^\s+(?:x86_64|x86|x32|aarch64|arm)\s+(\S+)\s+\d+\s+\d+\s`)

// timingOnly says a check's text reports syscalls outside the baseline
// and nothing else: every one is in gate.SchedulingCalls, and no program, file,
// destination or argument class is outside it. Such a check says the
// layer needs another recording (as make baseline-update records every
// spec three times, and a user records until a run adds nothing), not
// that the agent did something new.
func timingOnly(text string) bool {
	if strings.Contains(text, "outside the baseline:") || strings.Contains(text, "Argument classes:") ||
		strings.Count(text, "Outside the baseline:") != 1 {
		return false
	}
	rows := outsideRow.FindAllStringSubmatch(text, -1)
	for _, m := range rows {
		if !gate.SchedulingCalls[m[1]] {
			return false
		}
	}
	return len(rows) > 0
}

// untilTimingSettles runs check; while its text says only that
// scheduling-dependent syscalls are missing from a freshly recorded
// layer (timingOnly), it records once more with record and checks again,
// up to timingRounds times, each round in the spec's report. Whatever
// else a check reports, and a layer that never settles, is returned for
// the spec to fail on.
func untilTimingSettles(check func() (int, string), record func()) (int, string) {
	GinkgoHelper()
	for n := 1; ; n++ {
		code, out := check()
		if code != 1 || n > timingRounds || !timingOnly(out) {
			return code, out
		}
		AddReportEntry("the check found only scheduling-dependent syscalls the recordings missed; recording once more", out)
		record()
	}
}

// timingRounds bounds the extra recordings untilTimingSettles makes.
const timingRounds = 4

var _ = Describe("timingOnly", func() {
	table := func(rows ...string) string {
		return "sysgate check a: VIOLATION\n\nOutside the baseline:\n    ARCH    SYSCALL          NR   COUNT  RISK  FIRST MADE BY  ADD AT\n" +
			strings.Join(rows, "\n") + "\n\n  If the new syscalls are expected, add each.\n"
	}
	It("takes a check that missed only scheduling-dependent syscalls", func() {
		Expect(timingOnly(table("    x86_64  clock_nanosleep  230  1      -     /usr/bin/python3.13 (python3, pid 5377)  b.yaml:46",
			"    x86_64  sched_yield  24  3      -     /usr/bin/node (node, pid 7)  b.yaml:46"))).To(BeTrue())
	})
	It("refuses any other syscall, and any other section", func() {
		Expect(timingOnly(table("    x86_64  clock_nanosleep  230  1      -     p  b.yaml:46",
			"    x86_64  ptrace  101  1      high  p  b.yaml:46"))).To(BeFalse())
		Expect(timingOnly(table("    x86_64  sched_yield  24  1      -     p  b.yaml:46") +
			"\n1 destination outside the baseline:\n  connect 127.0.0.2:9\n")).To(BeFalse())
		Expect(timingOnly(table("    x86_64  sched_yield  24  1      -     p  b.yaml:46") + "\nArgument classes:\n")).To(BeFalse())
		Expect(timingOnly("sysgate check a: CLEAN\n")).To(BeFalse())
	})
})
