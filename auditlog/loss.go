package auditlog

import "github.com/sysgate/sysgate/observe"

// Loss counts what a subscription may have missed, in the plain form a
// run's verdict keeps (observe.Loss): any non-zero field but OtherGaps
// makes the run inconclusive.
type Loss = observe.Loss
