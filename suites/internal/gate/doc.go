// Package gate runs the suites' agents under the harness: against their
// committed baselines in check mode, and, under SYSGATE_MODE=record, in record
// mode with each spec's observation merged into
// $SYSGATE_OBSERVATIONS/<agent>.json, which scripts/security-test.sh
// --record turns back into the same baseline file. It is the suites' edge:
// the only place besides the CLI where environment variables become
// harness options. Every run's Result goes into the spec's report.
//
// The helpers assert with Gomega (GinkgoHelper): they are for specs only.
// Needs root and audit (harness.Run).
package gate
