package actionrun

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsupported marks an expression the dry run does not understand: an
// operator, function or context action.yml did not use when the dry run
// was written. Extend the evaluator (and its tests) before using it.
var ErrUnsupported = errors.New("not supported by the dry run")

// unsupportedError names what in an expression is not supported.
type unsupportedError struct{ what string }

func (e *unsupportedError) Error() string {
	return e.what + " is " + ErrUnsupported.Error() +
		" (it knows literals, inputs, steps, github, runner, ! == != && || ( ), format() and the status functions)"
}

func (e *unsupportedError) Is(target error) bool { return target == ErrUnsupported }

func unsupported(format string, args ...any) error {
	return &unsupportedError{what: fmt.Sprintf(format, args...)}
}

// node is a parsed expression.
type node interface{ isNode() }

type (
	literalNode struct{ v Value }
	// identNode is a context name: inputs, steps, github, runner.
	identNode    struct{ name string }
	propertyNode struct {
		of   node
		name string
	}
	callNode struct {
		name string // lower case
		args []node
	}
	notNode    struct{ x node }
	binaryNode struct {
		op   string // == != && ||
		l, r node
	}
)

func (literalNode) isNode()  {}
func (identNode) isNode()    {}
func (propertyNode) isNode() {}
func (callNode) isNode()     {}
func (notNode) isNode()      {}
func (binaryNode) isNode()   {}

// token is one lexeme of an expression.
type token struct {
	kind string // "num", "str", "ident", "op", "eof"
	text string
	v    Value
	pos  int
}

func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("unterminated string starting at column %d", i+1)
				}
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(src[j])
				j++
			}
			toks = append(toks, token{kind: "str", text: src[i : j+1], v: stringValue(b.String()), pos: i})
			i = j + 1
		case c >= '0' && c <= '9' || c == '-' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i + 1
			for j < len(src) && (isIdentByte(src[j]) || src[j] == '.' ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			n, ok := parseNumber(src[i:j])
			if !ok {
				return nil, fmt.Errorf("bad number %q at column %d", src[i:j], i+1)
			}
			toks = append(toks, token{kind: "num", text: src[i:j], v: numberValue(n), pos: i})
			i = j
		case isIdentByte(c):
			j := i
			for j < len(src) && (isIdentByte(src[j]) || src[j] == '-') {
				j++
			}
			toks = append(toks, token{kind: "ident", text: src[i:j], pos: i})
			i = j
		default:
			op := ""
			for _, o := range []string{"==", "!=", "<=", ">=", "&&", "||", "!", "<", ">", "(", ")", "[", "]", ".", ",", "*"} {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected %q at column %d", c, i+1)
			}
			toks = append(toks, token{kind: "op", text: op, pos: i})
			i += len(op)
		}
	}
	return append(toks, token{kind: "eof", pos: len(src)}), nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// parser is a recursive descent over GitHub's grammar, by precedence:
// || below && below == != below ! below property access and calls.
type parser struct {
	toks []token
	i    int
}

// parseExpr parses one expression (the text inside ${{ }}, or an if:).
func parseExpr(src string) (node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != "eof" {
		return nil, fmt.Errorf("unexpected %q at column %d", t.text, t.pos+1)
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == "op" && t.text == op
}

func (p *parser) or() (node, error) {
	return p.binary("||", p.and)
}

func (p *parser) and() (node, error) {
	return p.binary("&&", p.equality)
}

func (p *parser) binary(op string, operand func() (node, error)) (node, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for p.isOp(op) {
		p.next()
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = binaryNode{op: op, l: l, r: r}
	}
	return l, nil
}

func (p *parser) equality() (node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != "op" {
			return l, nil
		}
		switch t.text {
		case "==", "!=":
		case "<", "<=", ">", ">=":
			return nil, unsupported("the operator %s", t.text)
		default:
			return l, nil
		}
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = binaryNode{op: t.text, l: l, r: r}
	}
}

func (p *parser) unary() (node, error) {
	if p.isOp("!") {
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notNode{x: x}, nil
	}
	return p.postfix()
}

func (p *parser) postfix() (node, error) {
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.isOp("."):
			p.next()
			t := p.next()
			if t.kind == "op" && t.text == "*" {
				return nil, unsupported("the object filter .*")
			}
			if t.kind != "ident" {
				return nil, fmt.Errorf("want a property name after '.' at column %d", t.pos+1)
			}
			n = propertyNode{of: n, name: t.text}
		case p.isOp("["):
			return nil, unsupported("index syntax [...] (write .name)")
		default:
			return n, nil
		}
	}
}

func (p *parser) primary() (node, error) {
	t := p.next()
	switch t.kind {
	case "num", "str":
		return literalNode{v: t.v}, nil
	case "ident":
		switch t.text {
		case "true":
			return literalNode{v: boolValue(true)}, nil
		case "false":
			return literalNode{v: boolValue(false)}, nil
		case "null":
			return literalNode{v: null}, nil
		}
		if p.isOp("(") {
			p.next()
			var args []node
			for !p.isOp(")") {
				a, err := p.or()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if p.isOp(",") {
					p.next()
					continue
				}
				if !p.isOp(")") {
					return nil, fmt.Errorf("want ',' or ')' in the arguments of %s at column %d", t.text, p.peek().pos+1)
				}
			}
			p.next()
			return callNode{name: strings.ToLower(t.text), args: args}, nil
		}
		return identNode{name: strings.ToLower(t.text)}, nil
	case "op":
		if t.text == "(" {
			n, err := p.or()
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				return nil, fmt.Errorf("want ')' at column %d", p.peek().pos+1)
			}
			p.next()
			return n, nil
		}
		return nil, fmt.Errorf("unexpected %q at column %d", t.text, t.pos+1)
	}
	return nil, fmt.Errorf("the expression ends too early")
}

// statusFunctions are the calls that make an if: decide for itself
// whether a failed step stops it; without one, GitHub adds success() &&.
var statusFunctions = map[string]bool{"success": true, "failure": true, "always": true, "cancelled": true}

func hasStatusFunction(n node) bool {
	switch n := n.(type) {
	case callNode:
		if statusFunctions[n.name] {
			return true
		}
		for _, a := range n.args {
			if hasStatusFunction(a) {
				return true
			}
		}
	case propertyNode:
		return hasStatusFunction(n.of)
	case notNode:
		return hasStatusFunction(n.x)
	case binaryNode:
		return hasStatusFunction(n.l) || hasStatusFunction(n.r)
	}
	return false
}
