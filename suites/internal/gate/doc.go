// Package gate runs the suites' agents under the harness: against their
// committed baselines in check mode, and, under SYSGATE_RECORD=1, in record
// mode with each spec's observation merged into a file that
// scripts/security-test.sh --record turns back into the same baseline file.
//
// The helpers assert with Gomega (GinkgoHelper): they are for specs only.
// Needs root and audit (harness.Run).
package gate
