package verdict

import "time"

// Why the harness killed a process of the run.
const (
	CauseOutlived  = "outlived the agent" // still running when the grace period ended
	CauseTimeout   = "timeout"            // the run hit its timeout
	CauseCancelled = "cancelled"          // the caller's context ended
)

// Leak is a process of the run that the harness had to kill.
type Leak struct {
	PID   int           `json:"pid"`
	Exe   string        `json:"exe"`
	Comm  string        `json:"comm"`
	Lived time.Duration `json:"lived"` // nanoseconds, from its start to the kill
	Cause string        `json:"cause"` // CauseOutlived, CauseTimeout or CauseCancelled
}
