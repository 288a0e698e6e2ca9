// Package filecalls is the one table of the syscalls that name or
// change a file, which both file observers watch: the audit backend's
// exit rules (auditlog/touch) and the notify backend's file proxy
// (notify/fileproxy) are built from Observed, so a call added here is
// observed by both, and a call missing here is missing from both.
//
// Every other call that takes a path or a descriptor and can change or
// reveal a file is in Unobserved with the reason it is not watched; the
// package's test walks libseccomp's syscall table of every arch sysgate
// names (internal/scmp) and fails for a call that is in neither table
// nor in its list of calls that touch no file. A call libseccomp cannot
// name (newer than its tables: setxattrat, removexattrat on Linux 6.13)
// cannot be written in a baseline, so it is a violation of every one.
//
// Pure data: no cgo, no privileges.
package filecalls
