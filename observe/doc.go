// Package observe holds what every observer of a run reports in the same
// form, whatever backend saw the run: the calls outside the baseline
// (Syscall) and the loss (what it may have missed), as plain data a
// verdict can keep and a report can decode. It imports only the syscall
// tables (internal/scmp, pure Go), so a backend, the verdict and the
// renderers can all depend on it.
package observe
