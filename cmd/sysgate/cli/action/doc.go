// Package action is the pure part of sysgate's GitHub Action (action.yml,
// the `sysgate action` verbs): splitting and checking its inputs, writing
// GitHub's output file, the artifact's name, the one-line widening
// verdict and the step summary's recorded-baseline section. It reads no
// environment and runs nothing: cmd/sysgate/cli reads INPUT_* and GitHub's
// files and passes them in.
package action
