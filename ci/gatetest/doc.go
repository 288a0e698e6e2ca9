// Package gatetest is the Ginkgo and Gomega glue for harness: the matchers
// (StayWithinBaseline, HaveObserved) and the report entry that carries a
// run's Result into Ginkgo's JSON and JUnit reports (ReportResult, or Run,
// which is harness.Run followed by ReportResult), and Err, a run as an
// error whose Gomega output is the readable diff (ci.ViolationReport).
//
// It is for test code only: harness itself imports neither Ginkgo nor
// Gomega, so neither does the sysgate CLI. The matchers never pass an
// inconclusive run: they return an error for To and NotTo alike.
package gatetest
