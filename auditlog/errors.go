package auditlog

import "errors"

// Errors of the stream itself; environment problems (no audit, no
// privileges, a container, log not logged) match the sentinels of package
// auditctl.
var (
	// ErrBarrierTimeout: the barrier's sentinel record never arrived.
	ErrBarrierTimeout = errors.New("audit barrier timed out")
	// ErrClosed: the stream was closed.
	ErrClosed = errors.New("audit stream closed")
)
