// Package verdict is the model of one run's outcome and the rule that
// decides it: Result (who ran, what it did, what it found of every kind:
// syscalls, programs, files, network; processes, leaks, drift, loss) and
// Decide, a pure function of the run's findings, its completeness (what
// may have kept it from seeing everything) and the caller's policy.
//
// It needs nothing from the kernel and knows no backend: harness fills a
// Result from what its backend saw, and ci, the CLI and the matchers
// render or test it. A Result decoded from JSON is the same model, so a
// report can be judged again away from the machine that ran it.
//
// Decide is conclusive by construction: every reason the run may have
// missed something (loss, a failed barrier, an untracked tree, names no
// observer could tie to the kernel's object) makes it inconclusive, and
// any finding makes it a violation whatever else went wrong.
package verdict
