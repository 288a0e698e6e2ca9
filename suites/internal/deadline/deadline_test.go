package deadline

import (
	"context"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
)

// Ginkgo's SpecContext carries no Deadline (Ginkgo cancels it itself), so
// the decorators are checked where Default adds them.
func TestDecorate(t *testing.T) {
	const d = 2 * time.Minute
	spec := func(SpecContext) {}
	ctx := func(context.Context) {}
	plain := func() {}
	label := Label("x")
	for _, c := range []struct {
		name string
		typ  types.NodeType
		args []any
		want []any
	}{
		{"SpecContext body", types.NodeTypeIt, []any{label, spec}, []any{label, spec, SpecTimeout(d)}},
		{"context.Context body", types.NodeTypeIt, []any{ctx}, []any{ctx, SpecTimeout(d)}},
		{"own SpecTimeout", types.NodeTypeIt, []any{SpecTimeout(time.Second), spec}, []any{SpecTimeout(time.Second), spec}},
		{"own NodeTimeout", types.NodeTypeIt, []any{spec, NodeTimeout(time.Second)}, []any{spec, NodeTimeout(time.Second)}},
		{"no context", types.NodeTypeIt, []any{label, plain}, []any{label, plain}},
		{"not an It", types.NodeTypeBeforeEach, []any{spec}, []any{spec}},
		{"a container", types.NodeTypeContainer, []any{plain}, []any{plain}},
	} {
		got := decorate(d, c.typ, slices.Clone(c.args))
		if len(got) != len(c.want) {
			t.Errorf("%s: %d arguments, want %d", c.name, len(got), len(c.want))
			continue
		}
		for i := range got {
			if _, fn := got[i].(func()); fn {
				continue // funcs do not compare; the count and the rest do
			}
			if _, fn := got[i].(func(SpecContext)); fn {
				continue
			}
			if _, fn := got[i].(func(context.Context)); fn {
				continue
			}
			if !equal(got[i], c.want[i]) {
				t.Errorf("%s: argument %d is %v, want %v", c.name, i, got[i], c.want[i])
			}
		}
	}
}

func equal(a, b any) bool {
	if la, ok := a.(Labels); ok {
		lb, ok := b.(Labels)
		return ok && slices.Equal(la, lb)
	}
	return a == b
}
