package actionrun

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rhysd/actionlint"
)

// ErrUnsupported marks an expression the dry run does not understand: an
// operator, function or context action.yml did not use when the dry run
// was written. Extend the evaluator (and its tests) before using it.
var ErrUnsupported = errors.New("not supported by the dry run")

// unsupportedError names what is not supported, and what is instead.
type unsupportedError struct{ what, known string }

func (e *unsupportedError) Error() string {
	if e.known != "" {
		return e.what + " is " + ErrUnsupported.Error() + " (" + e.known + ")"
	}
	return e.what + " is " + ErrUnsupported.Error()
}

func (e *unsupportedError) Is(target error) bool { return target == ErrUnsupported }

func unsupported(format string, args ...any) error {
	return &unsupportedError{what: fmt.Sprintf(format, args...)}
}

// unsupportedSyntax is unsupported for a part of an expression.
func unsupportedSyntax(what string) error {
	return &unsupportedError{what: what, known: "it knows literals, inputs, steps, github, ! == != && || ( ) and the status functions"}
}

// parse parses the expression at the start of src (actionlint's parser:
// GitHub's grammar), which ends with the }} that closes it, and returns
// how much of src it took, the }} included.
func parse(src string) (actionlint.ExprNode, int, error) {
	l := actionlint.NewExprLexer(src)
	n, err := actionlint.NewExprParser().Parse(l)
	if err != nil {
		return nil, 0, fmt.Errorf("column %d: %s", err.Column, err.Message)
	}
	return n, l.Offset(), nil
}

// parseWhole parses src as one expression without its ${{ }}.
func parseWhole(src string) (actionlint.ExprNode, error) {
	n, end, err := parse(src + "}}")
	if err != nil {
		return nil, err
	}
	if end != len(src)+2 {
		return nil, fmt.Errorf("column %d: }} ends the expression early", end-1)
	}
	return n, nil
}

// scope is what an expression can see: the contexts by name and the
// job's status for the status functions.
type scope struct {
	contexts map[string]Value // inputs, steps, github
	failed   bool             // an earlier step failed (success() is false)
}

func (s *scope) eval(n actionlint.ExprNode) (Value, error) {
	switch n := n.(type) {
	case *actionlint.NullNode:
		return null, nil
	case *actionlint.BoolNode:
		return boolValue(n.Value), nil
	case *actionlint.IntNode:
		return numberValue(float64(n.Value)), nil
	case *actionlint.FloatNode:
		return numberValue(n.Value), nil
	case *actionlint.StringNode:
		return stringValue(n.Value), nil
	case *actionlint.VariableNode:
		v, ok := s.contexts[n.Name]
		if !ok {
			return null, unsupportedSyntax(fmt.Sprintf("the context %q", n.Name))
		}
		return v, nil
	case *actionlint.ObjectDerefNode:
		of, err := s.eval(n.Receiver)
		if err != nil {
			return null, err
		}
		return property(of, n.Property)
	case *actionlint.NotOpNode:
		x, err := s.eval(n.Operand)
		if err != nil {
			return null, err
		}
		return boolValue(!x.truthy()), nil
	case *actionlint.LogicalOpNode:
		return s.logical(n)
	case *actionlint.CompareOpNode:
		return s.compare(n)
	case *actionlint.FuncCallNode:
		return s.call(n)
	case *actionlint.IndexAccessNode:
		return null, unsupportedSyntax("index syntax [...]")
	case *actionlint.ArrayDerefNode:
		return null, unsupportedSyntax("the object filter .*")
	}
	return null, unsupportedSyntax(fmt.Sprintf("the expression node %T", n))
}

// logical is && and ||: they return an operand, not a boolean, and skip
// the right one when the left decides (a || 'default' picks a value).
func (s *scope) logical(n *actionlint.LogicalOpNode) (Value, error) {
	l, err := s.eval(n.Left)
	if err != nil {
		return null, err
	}
	if l.truthy() == (n.Kind == actionlint.LogicalOpNodeKindOr) {
		return l, nil
	}
	return s.eval(n.Right)
}

func (s *scope) compare(n *actionlint.CompareOpNode) (Value, error) {
	if !n.Kind.IsEqualityOp() {
		return null, unsupportedSyntax("the operator " + n.Kind.String())
	}
	// actionlint groups a == b == c from the right, GitHub from the left.
	if _, ok := n.Right.(*actionlint.CompareOpNode); ok {
		return null, unsupportedSyntax("a comparison with a comparison on its right")
	}
	l, err := s.eval(n.Left)
	if err != nil {
		return null, err
	}
	r, err := s.eval(n.Right)
	if err != nil {
		return null, err
	}
	return boolValue(equal(l, r) == (n.Kind == actionlint.CompareOpNodeKindEq)), nil
}

func property(of Value, name string) (Value, error) {
	if of.kind != kindObject {
		return null, nil // null.x and 'text'.x are null
	}
	v, ok := of.obj.fields[strings.ToLower(name)]
	if !ok && of.obj.closed {
		return null, unsupported("%s.%s (no such property)", of.obj.name, name)
	}
	if !ok {
		return null, nil
	}
	return v, nil
}

// statusFunctions are the calls that make an if: decide for itself
// whether a failed step stops it; without one, GitHub adds success() &&.
var statusFunctions = map[string]bool{"success": true, "failure": true, "always": true, "cancelled": true}

func (s *scope) call(n *actionlint.FuncCallNode) (Value, error) {
	name := strings.ToLower(n.Callee)
	if statusFunctions[name] && len(n.Args) != 0 {
		return null, fmt.Errorf("%s() takes no arguments, not %d", name, len(n.Args))
	}
	switch name {
	case "success":
		return boolValue(!s.failed), nil
	case "failure":
		return boolValue(s.failed), nil
	case "always":
		return boolValue(true), nil
	case "cancelled":
		// A dry run is never cancelled: it stops with the process.
		return boolValue(false), nil
	}
	return null, unsupportedSyntax("the function " + n.Callee + "()")
}

func hasStatusFunction(n actionlint.ExprNode) bool {
	found := false
	actionlint.VisitExprNode(n, func(n, _ actionlint.ExprNode, entering bool) {
		if f, ok := n.(*actionlint.FuncCallNode); ok && entering {
			found = found || statusFunctions[strings.ToLower(f.Callee)]
		}
	})
	return found
}

// evaluate evaluates one expression (without ${{ }}) in the scope.
func (s *scope) evaluate(src string) (Value, error) {
	n, err := parseWhole(src)
	if err != nil {
		return null, err
	}
	return s.eval(n)
}

// interpolate replaces each ${{ expression }} in text by its value as a
// string, as GitHub does in with:, env:, run: and the other fields.
func (s *scope) interpolate(text string) (string, error) {
	var b strings.Builder
	rest := text
	for {
		start := strings.Index(rest, "${{")
		if start < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:start])
		rest = rest[start+3:]
		n, end, err := parse(rest)
		if err != nil {
			return "", fmt.Errorf("${{%s: %w", abbreviate(rest), err)
		}
		src := rest[:end-2]
		v, err := s.eval(n)
		if err == nil {
			var out string
			out, err = v.text()
			b.WriteString(out)
		}
		if err != nil {
			return "", fmt.Errorf("${{%s}}: %w", src, err)
		}
		rest = rest[end:]
	}
}

func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// condition evaluates a step's if: as GitHub does. The ${{ }} around it
// is optional; without a status function the step also needs success().
// Text around a ${{ }} would make a string that is always true: GitHub
// runs such a step every time, so the dry run refuses it.
func (s *scope) condition(cond string) (bool, error) {
	src := strings.TrimSpace(cond)
	if src == "" {
		return !s.failed, nil
	}
	var n actionlint.ExprNode
	var err error
	if rest, ok := strings.CutPrefix(src, "${{"); ok {
		var end int
		if n, end, err = parse(rest); err != nil {
			return false, err
		}
		if strings.TrimSpace(rest[end:]) != "" {
			return false, fmt.Errorf("text after ${{ }}: GitHub reads the whole if: as a string, always true; put the whole condition inside one ${{ }} or none")
		}
	} else if strings.Contains(src, "${{") {
		return false, fmt.Errorf("text before ${{ }}: GitHub reads the whole if: as a string, always true; put the whole condition inside one ${{ }} or none")
	} else if n, err = parseWhole(src); err != nil {
		return false, err
	}
	if !hasStatusFunction(n) && s.failed {
		return false, nil // success() && ..., which GitHub adds
	}
	v, err := s.eval(n)
	if err != nil {
		return false, err
	}
	return v.truthy(), nil
}
