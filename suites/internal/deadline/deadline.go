// Package deadline gives the specs of a suite a default Ginkgo SpecTimeout.
//
// Ginkgo has a deadline for the whole suite (--timeout) and one per node
// (SpecTimeout, NodeTimeout), but no default per spec. A spec's deadline is
// what its SpecContext carries into harness.Run (through gatetest.Run and
// the suites' gate helper, or as exec.CommandContext of the CLI): when it
// expires the run's tree is killed and its result is inconclusive, timed
// out, instead of the spec hanging until the suite's --timeout. The
// harness-level timeouts (gate.RunTimeout, harness.WithTimeout) still
// bound each run inside it.
package deadline

import (
	"context"
	"reflect"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// Ordinary is the default for a spec that runs a few agents: the slowest
// run of the suites takes seconds, each once.
const Ordinary = 2 * time.Minute

// Default decorates every It created after it with SpecTimeout(d), unless
// the It names a SpecTimeout or NodeTimeout of its own or its body takes
// no context (Ginkgo refuses a timeout there: such a spec cannot be
// interrupted). Call it in the suite's Test function before RunSpecs: the
// Its inside containers are created then. It returns the function that
// removes the default. It is Ginkgo's tree-construction hook
// (AddTreeConstructionNodeArgsTransformer); it changes nothing else.
func Default(d time.Duration) (remove func()) {
	return AddTreeConstructionNodeArgsTransformer(func(nodeType types.NodeType, _ Offset, text string, args []any) (string, []any, []error) {
		return text, decorate(d, nodeType, args), nil
	})
}

// decorate is Default's change to one node's arguments.
func decorate(d time.Duration, nodeType types.NodeType, args []any) []any {
	if nodeType == types.NodeTypeIt && interruptible(args) && !hasTimeout(args) {
		return append(args, SpecTimeout(d))
	}
	return args
}

// hasTimeout reports whether the node's own decorators set a timeout.
func hasTimeout(args []any) bool {
	for _, a := range args {
		switch a.(type) {
		case SpecTimeout, NodeTimeout:
			return true
		}
	}
	return false
}

var contextType = reflect.TypeFor[context.Context]()

// interruptible reports whether the node's body takes a context
// (func(SpecContext) or func(context.Context)).
func interruptible(args []any) bool {
	for _, a := range args {
		t := reflect.TypeOf(a)
		if t != nil && t.Kind() == reflect.Func && t.NumIn() == 1 && t.In(0).Implements(contextType) {
			return true
		}
	}
	return false
}
