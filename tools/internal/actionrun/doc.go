// Package actionrun runs a composite GitHub Action's steps on this machine
// the way GitHub's runner would: the local dry run of sysgate's action.yml
// (scripts/action-dry-run.sh, tools/cmd/action-dry-run).
//
// It reads action.yml itself, so the dry run follows the file as written:
// inputs with their defaults, each step's if:, env:, working-directory: and
// run:, and the action's outputs. run: steps go to bash (or sh) as GitHub
// starts them, with GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and
// GITHUB_STEP_SUMMARY files read back after each step. The actions
// sysgate's action uses are simulated with the inputs it gives them:
// actions/cache/restore and actions/cache/save of one path by key against
// a local directory, actions/setup-go only where a Go is already usable,
// actions/upload-artifact of one path into a local directory. Their code
// is laid out under _actions as a runner downloads it, and a change to it
// before its step runs is reported (Result.TamperedActions). Keys, inputs
// and shells action.yml does not use are errors, as unsupported
// expressions are.
//
// Expressions are parsed by actionlint's parser and evaluated for the
// subset action.yml uses, with GitHub's semantics: literals, inputs,
// steps.<id>.outputs, outcome and conclusion, the github properties the
// runner sets (github.event from the event's payload), ! == != && || and
// parentheses, and the status functions. Anything else is an error naming
// the step and the expression (ErrUnsupported), so action.yml cannot
// outgrow the dry run unnoticed.
//
// It needs nothing but bash; what the steps need (root, audit, Go) is
// theirs. It reads no environment: the caller passes the base environment
// of the steps.
package actionrun
