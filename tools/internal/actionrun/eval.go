package actionrun

import (
	"fmt"
	"strconv"
	"strings"
)

// scope is what an expression can see: the contexts by name and the
// job's status for the status functions.
type scope struct {
	contexts map[string]Value // inputs, steps, github, runner
	failed   bool             // an earlier step failed (success() is false)
}

func (s *scope) eval(n node) (Value, error) {
	switch n := n.(type) {
	case literalNode:
		return n.v, nil
	case identNode:
		v, ok := s.contexts[n.name]
		if !ok {
			return null, unsupported("the context %q", n.name)
		}
		return v, nil
	case propertyNode:
		of, err := s.eval(n.of)
		if err != nil {
			return null, err
		}
		return property(of, n.name)
	case notNode:
		x, err := s.eval(n.x)
		if err != nil {
			return null, err
		}
		return boolValue(!x.truthy()), nil
	case binaryNode:
		l, err := s.eval(n.l)
		if err != nil {
			return null, err
		}
		// && and || return an operand, not a boolean, and skip the right
		// one when the left decides: a || 'default' picks a value.
		switch n.op {
		case "&&":
			if !l.truthy() {
				return l, nil
			}
			return s.eval(n.r)
		case "||":
			if l.truthy() {
				return l, nil
			}
			return s.eval(n.r)
		}
		r, err := s.eval(n.r)
		if err != nil {
			return null, err
		}
		if n.op == "==" {
			return boolValue(equal(l, r)), nil
		}
		return boolValue(!equal(l, r)), nil
	case callNode:
		return s.call(n)
	}
	return null, fmt.Errorf("unknown node %T", n)
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

func (s *scope) call(n callNode) (Value, error) {
	args := func(want int) error {
		if len(n.args) != want {
			return fmt.Errorf("%s() takes %d arguments, not %d", n.name, want, len(n.args))
		}
		return nil
	}
	switch n.name {
	case "success":
		return boolValue(!s.failed), args(0)
	case "failure":
		return boolValue(s.failed), args(0)
	case "always":
		return boolValue(true), args(0)
	case "cancelled":
		// A dry run is never cancelled: it stops with the process.
		return boolValue(false), args(0)
	case "format":
		if len(n.args) == 0 {
			return null, fmt.Errorf("format() needs a format string")
		}
		vals := make([]string, len(n.args))
		for i, a := range n.args {
			v, err := s.eval(a)
			if err != nil {
				return null, err
			}
			if vals[i], err = v.text(); err != nil {
				return null, fmt.Errorf("format() argument %d: %w", i, err)
			}
		}
		out, err := format(vals[0], vals[1:])
		return stringValue(out), err
	}
	return null, unsupported("the function %s()", n.name)
}

// format is GitHub's format(): {N} is argument N, {{ and }} are braces.
func format(f string, args []string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '{' && i+1 < len(f) && f[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(f) && f[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(f[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("format(%q): unclosed {", f)
			}
			k, err := strconv.Atoi(f[i+1 : i+end])
			if err != nil || k < 0 {
				return "", fmt.Errorf("format(%q): %q is not an argument index", f, f[i:i+end+1])
			}
			if k >= len(args) {
				return "", fmt.Errorf("format(%q): {%d} but only %d arguments", f, k, len(args))
			}
			b.WriteString(args[k])
			i += end
		case c == '}':
			return "", fmt.Errorf("format(%q): a lone } (write }})", f)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// Evaluate evaluates one expression (without ${{ }}) in the scope.
func (s *scope) Evaluate(src string) (Value, error) {
	n, err := parseExpr(src)
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
		end, err := expressionEnd(rest[start+3:])
		if err != nil {
			return "", fmt.Errorf("%s: %w", abbreviate(rest[start:]), err)
		}
		src := rest[start+3 : start+3+end]
		v, err := s.Evaluate(src)
		if err != nil {
			return "", fmt.Errorf("${{%s}}: %w", src, err)
		}
		out, err := v.text()
		if err != nil {
			return "", fmt.Errorf("${{%s}}: %w", src, err)
		}
		b.WriteString(out)
		rest = rest[start+3+end+2:]
	}
}

// expressionEnd finds the }} that closes an expression, skipping string
// literals (format('{0}}}') holds braces).
func expressionEnd(s string) (int, error) {
	inString := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'':
			inString = !inString // '' inside a string toggles twice
		case !inString && strings.HasPrefix(s[i:], "}}"):
			return i, nil
		}
	}
	return 0, fmt.Errorf("no }} closes the expression")
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
	if strings.HasPrefix(src, "${{") {
		end, err := expressionEnd(src[3:])
		if err != nil {
			return false, err
		}
		if strings.TrimSpace(src[3+end+2:]) != "" {
			return false, fmt.Errorf("text after ${{ }}: GitHub reads the whole if: as a string, always true; put the whole condition inside one ${{ }} or none")
		}
		src = src[3 : 3+end]
	} else if strings.Contains(src, "${{") {
		return false, fmt.Errorf("text before ${{ }}: GitHub reads the whole if: as a string, always true; put the whole condition inside one ${{ }} or none")
	}
	n, err := parseExpr(src)
	if err != nil {
		return false, err
	}
	if !hasStatusFunction(n) {
		n = binaryNode{op: "&&", l: callNode{name: "success"}, r: n}
	}
	v, err := s.eval(n)
	if err != nil {
		return false, err
	}
	return v.truthy(), nil
}
