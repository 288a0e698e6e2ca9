package actionrun

import (
	"errors"
	"strings"
	"testing"
)

// testScope has what action.yml's expressions see: inputs, a step that
// ran (plan), one declared but not run yet (gate), and github.
func testScope(failed bool) *scope {
	return &scope{failed: failed, contexts: map[string]Value{
		"inputs": objectValue("inputs", true, map[string]Value{
			"mode": stringValue("check"), "upload": stringValue("true"),
			"artifact-name": stringValue(""), "timeout": stringValue("10m"),
		}),
		"steps": objectValue("steps", true, map[string]Value{
			"plan": objectValue("steps.plan", true, map[string]Value{
				"outputs": objectValue("steps.plan.outputs", false, map[string]Value{
					"from": stringValue("source"), "need-go": stringValue("false"), "count": stringValue("2"),
				}),
				"outcome": stringValue("success"), "conclusion": stringValue("success"),
			}),
			"gate": null,
		}),
		"github": objectValue("github", true, map[string]Value{"job": stringValue("build"), "run_id": stringValue("42")}),
	}}
}

func TestEvaluate(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		// literals
		{"true", "true"},
		{"null", ""},
		{"1.5", "1.5"},
		{"0x10", "16"},
		{"-2", "-2"},
		{"1e3", "1000"},
		{"'it''s'", "it's"},
		// contexts, case-insensitive names, not-yet-run steps and unset outputs are null
		{"inputs.mode", "check"},
		{"INPUTS.Mode", "check"},
		{"steps.plan.outputs.from", "source"},
		{"steps.plan.outputs.unset", ""},
		{"steps.gate.outputs.verdict", ""},
		{"steps.plan.outcome", "success"},
		{"github.run_id", "42"},
		// loose equality: strings ignore case, other types compare as numbers
		{"inputs.mode == 'check'", "true"},
		{"'ABC' == 'abc'", "true"},
		{"inputs.mode != 'check'", "false"},
		{"null == ''", "true"},
		{"null == 0", "true"},
		{"1 == '1'", "true"},
		{"'0x10' == 16", "true"},
		{"true == 1", "true"},
		{"'true' == true", "false"},
		{"'abc' == 0", "false"},
		{"steps.plan.outputs.count == 2", "true"},
		{"steps.plan == steps.plan", "true"},
		{"steps.plan == 'x'", "false"},
		// && and || return an operand, ! a boolean
		{"inputs.artifact-name || 'fallback'", "fallback"},
		{"inputs.mode || 'fallback'", "check"},
		{"'a' && 'b'", "b"},
		{"'' && 'b'", ""},
		{"0 || null", ""},
		{"!inputs.artifact-name", "true"},
		{"!!inputs.mode", "true"},
		{"!(inputs.mode == 'check')", "false"},
		{"inputs.artifact-name != '' && inputs.artifact-name || steps.plan.outputs.from", "source"},
		{"steps.gate.outputs.reports != ''", "false"},
		{"true || false && false", "true"},
		{"(true || false) && false", "false"},
		// status functions, job not failed
		{"success()", "true"},
		{"failure()", "false"},
		{"always()", "true"},
		{"cancelled()", "false"},
	} {
		v, err := testScope(false).evaluate(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got := v.String(); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

func TestEvaluateStatusAfterFailure(t *testing.T) {
	for expr, want := range map[string]bool{"success()": false, "failure()": true, "always()": true, "!cancelled()": true} {
		v, err := testScope(true).evaluate(expr)
		if err != nil || v.truthy() != want {
			t.Errorf("after a failed step %s = %v (%v), want %v", expr, v, err, want)
		}
	}
}

// TestEvaluateUnsupported: what the evaluator does not know is an error
// that says so, never null or false.
func TestEvaluateUnsupported(t *testing.T) {
	for _, expr := range []string{
		"contains(inputs.mode, 'c')",
		"fromJSON('1')",
		"format('{0}', 1)",
		"inputs.timeout < 1",
		"inputs.timeout >= 1",
		"inputs.mode == 'check' == true", // GitHub groups it from the left, actionlint from the right
		"steps['plan']",
		"steps.*.outputs",
		"env.HOME",
		"secrets.TOKEN",
		"matrix.os",
		"inputs.no-such-input",
		"steps.no-such-step.outputs.x",
		"github.token",
		"runner.os",
	} {
		_, err := testScope(false).evaluate(expr)
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: want ErrUnsupported, got %v", expr, err)
		}
	}
}

func TestEvaluateSyntaxErrors(t *testing.T) {
	for _, expr := range []string{"(true", "'open", "inputs.mode ==", "inputs.", "a b", "1 2", "success(1)", "#", "true }} false", "1e999"} {
		if _, err := testScope(false).evaluate(expr); err == nil {
			t.Errorf("%s: want an error", expr)
		} else if errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: a syntax error, not unsupported: %v", expr, err)
		}
	}
}

func TestCondition(t *testing.T) {
	for _, tc := range []struct {
		cond   string
		failed bool
		want   bool
	}{
		{"", false, true},
		{"", true, false},
		{"${{ steps.plan.outputs.from == 'source' }}", false, true},
		{"steps.plan.outputs.from == 'source'", false, true},
		// no status function: success() && is implied
		{"steps.plan.outputs.from == 'source'", true, false},
		{"${{ !cancelled() }}", true, true},
		{"${{ !cancelled() && inputs.upload == 'true' && steps.gate.outputs.reports != '' }}", true, false},
		{"always() && steps.plan.outcome == 'success'", true, true},
		{"failure()", false, false},
		{"failure()", true, true},
		// a status function anywhere in it counts
		{"${{ (failure() || success()) == true }}", true, true},
	} {
		got, err := testScope(tc.failed).condition(tc.cond)
		if err != nil || got != tc.want {
			t.Errorf("if: %s (failed=%v) = %v, %v; want %v", tc.cond, tc.failed, got, err, tc.want)
		}
	}
	for _, cond := range []string{"${{ true }} && false", "x ${{ true }}"} {
		if _, err := testScope(false).condition(cond); err == nil || !strings.Contains(err.Error(), "always true") {
			t.Errorf("if: %s: want an error about GitHub's always-true string, got %v", cond, err)
		}
	}
}

func TestInterpolate(t *testing.T) {
	got, err := testScope(false).interpolate("a ${{ inputs.mode }} b ${{'1}'}} c ${{ steps.gate.outputs.x }}.")
	if err != nil || got != "a check b 1} c ." {
		t.Errorf("got %q, %v", got, err)
	}
	// A string may hold }}: the expression ends at the }} outside it.
	if got, err := testScope(false).interpolate("${{ 'a}}b' }}${{inputs.mode}}"); err != nil || got != "a}}bcheck" {
		t.Errorf("a string holding }}: got %q, %v", got, err)
	}
	for _, text := range []string{"${{ inputs.mode", "${{ steps.plan }}", "${{ 'x' == }}", "${{ 'open }}"} {
		if _, err := testScope(false).interpolate(text); err == nil {
			t.Errorf("%s: want an error", text)
		}
	}
}

func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{"inputs.mode == 'check'", "'x' || !always()", "(1 != 0x1) && 'a'", "${{ x }}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		_, _ = testScope(false).evaluate(expr)
		_, _ = testScope(true).condition(expr)
		_, _ = testScope(false).interpolate(expr)
	})
}
