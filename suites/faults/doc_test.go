// Package faults_test is the fault-injection suite: each spec forces one
// fault (lost audit records, a socket overflow, seccomp LOG switched off,
// a blocked barrier, an agent trying to escape, a killed harness, bad
// input) and proves the gate fails closed: exit 3 (inconclusive) or 1
// (the violation), with a message naming the cause, never a pass.
//
// The specs drive the real CLI (a sysgate binary built once per suite);
// faults that change global kernel settings run `sysgate check` inside the
// test process instead, holding auditctltest.ExclusiveKernel, which keeps every
// other run on the machine (parallel test packages) out until the settings
// are restored. Needs root, audit and seccomp's LOG action; under CI=true a
// skipped privileged spec is a failure.
package faults_test
