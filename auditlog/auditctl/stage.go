package auditctl

import "github.com/sysgate/sysgate/auditlog/auditctl/internal/faulthook"

// Stage names a point in the life of the kernel settings a run holds,
// where a fault test stops the process (auditctltest.OnStage) to kill it
// there and prove that nothing is left behind.
type Stage string

const (
	// StageTuningSaved: tuning.json lists the process; the first holder
	// has saved the backlog settings and not yet tuned them.
	StageTuningSaved Stage = "tuning-saved"
	// StageTuned: the backlog is tuned (or was already, by another holder).
	StageTuned Stage = "tuned"
	// StageRulesSaved: the run's rule file is written, no rule is added.
	StageRulesSaved Stage = "rules-saved"
	// StageRulesAdded: the run's rules are in the kernel.
	StageRulesAdded Stage = "rules-added"
	// StageRulesDeleted: on release, the kernel's rules are gone and the
	// rule file is not.
	StageRulesDeleted Stage = "rules-deleted"
	// StageLeaving: on release, the process is about to drop its hold
	// of the backlog tuning (reached by every holder, last or not).
	StageLeaving Stage = "leaving"
	// StageRestoring: the last holder has restored backlog_limit and not
	// yet backlog_wait_time.
	StageRestoring Stage = "restoring"
)

func stage(s Stage) {
	if faulthook.Stage != nil {
		faulthook.Stage(string(s))
	}
}
