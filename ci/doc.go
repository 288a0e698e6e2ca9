// Package ci turns sysgate results into what a CI system shows: GitHub
// annotations on the baseline line where a new syscall belongs, a markdown
// step summary, and the body of a baseline-update pull request.
//
// Every output is rendered from one findings model, Report, built from
// harness Result JSON files or from Ginkgo JSON reports whose specs attached
// a Result with AddReportEntry. Rendering needs no privileges and no kernel
// access; it reads files and writes text.
//
// The workflows a repository copies into .github/workflows/ live in
// ci/github/workflows; lint_test.go runs actionlint over them in make test.
package ci
