// Package testutil gates privileged tests.
//
// A privileged test calls RequireRoot or RequireAudit first. Outside CI a
// missing privilege skips the test with a tagged reason ("[root]: ...").
// Under CI=true (set by .ci/run and by the Makefile's test target) the same
// condition fails the test instead: CI runs as root, so a skip there means a
// check silently did not run, and that must never pass.
package testutil
