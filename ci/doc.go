// Package ci renders every sysgate output format from one model, the
// verdict.Result of each run: the text sysgate check, enforce and record
// print (WriteText, WriteRecorded), the Result JSON (WriteJSON), GitHub
// annotations on the baseline line where a new syscall or program
// belongs, a markdown step summary, and what other CI tools read: SARIF 2.1.0 for code scanning
// (WriteSARIF, through github.com/owenrumney/go-sarif), JUnit XML
// (WriteJUnit) and the step outputs of $GITHUB_OUTPUT (WriteGitHubOutput,
// to a writer the caller opens).
// WriteResult picks one of the formats of a single run (check --format).
//
// Every sentence about a run is ci's: verdict.Result holds data and its
// predicates (Conclusive, AgentFailed, Recorded), and the words are
// functions of it here (Summary, ExitText, ArchHint, DriftNote,
// WeakenedBanner, ViolationReport, ...), for the CLI, the renderers and
// gatetest's Gomega messages alike. Verdict is verdict.Verdict, with
// VerdictRecorded, which only a report gives.
//
// A Report is a list of runs, each a *verdict.Result plus what only the
// report knows: the Ginkgo spec that attached it and whether that spec
// expected the violation. Load builds one from Ginkgo JSON reports (each
// spec attaches its Result with AddReportEntry under
// verdict.ReportEntryName; the report is decoded without importing
// Ginkgo) and Result JSON files, FromResults from results in hand. Facts
// derived from a Result (a record run's "recorded" syscalls, the
// missing-arch hint, baseline paths relative to the repository) are
// computed when rendering, never stored beside it. A violation in a
// passing spec is a bite the spec asserted and fails nothing.
//
// Programs: every format shows the programs a run ran outside its
// baselines (verdict.Result.ProgramViolations) beside its syscalls, with
// the first exec's argv, what ran it and the programs: line that would
// allow it. An exec mismatch (the kernel ran another program than the
// exec named) is shown as the reason instead: no baseline line fixes it,
// a record run with one is a violation, and Observations refuses it
// (ErrExecMismatch).
//
// Baseline updates, their pull request's body and the widening check
// are package update's; Report.Observations hands it a report's runs.
// ci imports neither harness nor a backend: the model is package verdict.
//
// Rendering needs no privileges and no kernel access: they read
// and write files. The workflows in .github/workflows (this repository's
// own, and the reusable baseline-update workflow others call) and the
// action's steps (action.yml) pass actionlint and shellcheck in make test
// (lint_test.go, action_lint_test.go, shellcheck_test.go).
package ci
