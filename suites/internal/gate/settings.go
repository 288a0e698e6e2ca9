package gate

import (
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/auditlog/auditctl"
)

// settledBefore is auditctl.Settled when the suite began (process 1).
var settledBefore struct {
	settings auditctl.Settings
	orphans  []string
	ok       bool
}

// RecordSettings notes where the kernel settings sysgate changes settle
// (auditctl.Settled), for ExpectSettingsBack: call it in the first
// function of SynchronizedBeforeSuite, which runs on process 1. Without
// root or audit there is nothing to compare.
func RecordSettings() {
	s, orphans, err := auditctl.Settled()
	if err == nil {
		settledBefore.settings, settledBefore.orphans, settledBefore.ok = s, orphans, true
	}
}

// ExpectSettingsBack is the suite's leak check of kernel settings (audit
// enabled, backlog_limit, backlog_wait_time, actions_logged, sysgate's
// rules): each must settle where it did when RecordSettings ran. For the
// second function of SynchronizedAfterSuite (process 1, once every
// process is done). Runs of other processes beside the suite count by
// what they will give back, so only a setting left behind fails it.
func ExpectSettingsBack() {
	if settledBefore.ok {
		Expect(auditctl.LeftBehind(settledBefore.settings, settledBefore.orphans)).To(Succeed())
	}
}
