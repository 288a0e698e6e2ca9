package auditctl

import "errors"

// Sentinel errors; every error the audit packages return for an
// environment problem matches one of them with errors.Is.
var (
	// ErrNotSupported: the kernel lacks audit, seccomp or its LOG action.
	ErrNotSupported = errors.New("not supported by this kernel")
	// ErrPermission: the process lacks root/CAP_AUDIT_READ/CAP_AUDIT_CONTROL.
	ErrPermission = errors.New("insufficient privileges")
	// ErrNamespace: not in the initial user or network namespace (a
	// container), where the audit multicast delivers nothing.
	ErrNamespace = errors.New("not in the initial namespaces")
	// ErrActionNotLogged: kernel.seccomp.actions_logged lacks "log", so
	// SECCOMP_RET_LOG produces no records.
	ErrActionNotLogged = errors.New("seccomp log action not logged")
)

// Error is an environment problem with the exact fix. It matches its
// Kind (one of the sentinels) and the underlying error.
type Error struct {
	Kind    error  // ErrNotSupported, ErrPermission, ...
	Problem string // what is wrong
	Fix     string // what to run or change
	Err     error  // the underlying error, if any
}

func (e *Error) Error() string {
	s := e.Kind.Error() + ": " + e.Problem
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Fix != "" {
		s += " (fix: " + e.Fix + ")"
	}
	return s
}

// Is matches the kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
