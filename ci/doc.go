// Package ci turns sysgate results into what a CI system shows: GitHub
// annotations on the baseline line where a new syscall belongs, a markdown
// step summary, and the body of a baseline-update pull request.
//
// Every output is rendered from one findings model, Report, built by Load
// from Ginkgo JSON reports (each spec attaches its harness.Result with
// AddReportEntry, named "sysgate <agent>") and harness Result JSON files,
// or by FromResults from results in hand. A violation in a passing spec is
// a bite the spec asserted and fails nothing; a record-mode run's new
// syscalls are "recorded", not violations.
//
// Baseline updates: MergeObservations merges observation files of any
// number of shards per agent (order and grouping do not matter), and
// PlanUpdate rewrites each agent's baseline file (runtime bases first)
// through baseline.FromObservation. An agent without a file, an arch the
// files do not expect or a missing arch is ErrUnexpected, before anything
// is written.
//
// Rendering and updates need no privileges and no kernel access: they read
// and write files. The workflows a repository copies into
// .github/workflows/ live in ci/github/workflows; lint_test.go runs
// actionlint over them in make test.
package ci
