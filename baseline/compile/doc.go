// Package compile turns a baseline.Profile into a seccomp BPF program for
// one baseline.Mode (record, check, enforce) through libseccomp, without
// loading it: the harness installs Filter.Program itself, as the last step
// before execve. It is the only importer of libseccomp beside
// internal/scmp, kept out of package baseline so that code which only
// reads, diffs and renders baselines does not compile it.
//
// The compiler needs Linux and cgo (compile.go, export_bpf.go,
// compile_listener.go); elsewhere the package keeps its types and its
// Compile fails with ErrNotSupported, so callers build everywhere.
package compile
