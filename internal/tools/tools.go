//go:build tools

// Package tools pins the modules whose commands the Makefile runs with
// "go run" (the Ginkgo CLI) so that go.mod records them.
package tools

import (
	_ "github.com/onsi/ginkgo/v2/ginkgo"
)
