// Package scmp names syscalls and architectures for sysgate.
//
// It is the one place, besides the filter compiler in package baseline,
// that talks to libseccomp: syscall numbers are turned into names (and back)
// per architecture through libseccomp's own tables, never through tables
// written here. Lookups are cached; every function is safe for concurrent
// use and needs no privileges.
package scmp
