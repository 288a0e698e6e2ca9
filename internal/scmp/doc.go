// Package scmp names syscalls and architectures for sysgate.
//
// Syscall numbers are turned into names (and back) per architecture
// through libseccomp's own tables, generated into pure Go
// (zsyscalls_<arch>_table.go, by internal/mktables: go generate
// ./internal/scmp), so naming needs neither cgo nor Linux. Only
// arch_libseccomp.go (linux && cgo) talks to libseccomp: it maps an Arch
// to libseccomp's identifier for the filter compiler (baseline/compile)
// and reads the tables out of libseccomp for the generator and for
// TestTablesMatchLibseccomp, which fails when the generated tables and
// the installed libseccomp disagree. Every function is safe for
// concurrent use and needs no privileges.
package scmp
