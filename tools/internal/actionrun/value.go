package actionrun

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// kind is the type of an expression's value.
type kind int

const (
	kindNull kind = iota + 1
	kindBool
	kindNumber
	kindString
	kindObject
)

// Value is the result of an expression: null, a boolean, a number, a
// string or an object (a context such as inputs or steps.<id>).
type Value struct {
	kind kind
	b    bool
	n    float64
	s    string
	obj  *object
}

// object is a context or a part of one. Keys are lower case: GitHub
// looks properties up without regard to case. A closed object makes an
// unknown key an error (inputs.typo, github.unknown): GitHub would give
// null, and the step would quietly get an empty string.
type object struct {
	name   string // for errors: "inputs", "steps.gate.outputs"
	fields map[string]Value
	closed bool
}

var null = Value{kind: kindNull}

func boolValue(b bool) Value      { return Value{kind: kindBool, b: b} }
func numberValue(n float64) Value { return Value{kind: kindNumber, n: n} }
func stringValue(s string) Value  { return Value{kind: kindString, s: s} }

func objectValue(name string, closed bool, fields map[string]Value) Value {
	lower := make(map[string]Value, len(fields))
	for k, v := range fields {
		lower[strings.ToLower(k)] = v
	}
	return Value{kind: kindObject, obj: &object{name: name, fields: lower, closed: closed}}
}

// truthy is GitHub's coercion to a boolean: false, 0, -0, NaN, "" and
// null are false, everything else (objects included) is true.
func (v Value) truthy() bool {
	switch v.kind {
	case kindBool:
		return v.b
	case kindNumber:
		return v.n != 0 && !math.IsNaN(v.n)
	case kindString:
		return v.s != ""
	case kindObject:
		return true
	}
	return false
}

// number is GitHub's coercion to a number: null 0, booleans 1 and 0, a
// string its numeric value (blank 0, not a number NaN), objects NaN.
func (v Value) number() float64 {
	switch v.kind {
	case kindNull:
		return 0
	case kindBool:
		if v.b {
			return 1
		}
		return 0
	case kindNumber:
		return v.n
	case kindString:
		s := strings.TrimSpace(v.s)
		if s == "" {
			return 0
		}
		if n, ok := parseNumber(s); ok {
			return n
		}
	}
	return math.NaN()
}

// parseNumber reads a number as GitHub's expressions write one: decimal
// with an optional fraction and exponent, or hexadecimal 0x...
func parseNumber(s string) (float64, bool) {
	neg := false
	t := s
	if strings.HasPrefix(t, "-") {
		neg, t = true, t[1:]
	}
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
		u, err := strconv.ParseUint(t[2:], 16, 64)
		if err != nil {
			return 0, false
		}
		if neg {
			return -float64(u), true
		}
		return float64(u), true
	}
	// ParseFloat also takes "inf", "nan" and underscores; GitHub does not.
	for _, c := range t {
		if !strings.ContainsRune("0123456789.eE+-", c) {
			return 0, false
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	return n, err == nil
}

// String is GitHub's coercion to a string, as ${{ }} puts a value into
// text: null is empty, numbers print without a needless fraction.
func (v Value) String() string {
	switch v.kind {
	case kindBool:
		return strconv.FormatBool(v.b)
	case kindNumber:
		// Only literals make numbers: finite (actionlint refuses 1e999).
		return strconv.FormatFloat(v.n, 'f', -1, 64)
	case kindString:
		return v.s
	case kindObject:
		return "Object"
	}
	return ""
}

// text is String for a value that goes into text, refusing an object:
// GitHub would print it as JSON, which no step of a dry run means.
func (v Value) text() (string, error) {
	if v.kind == kindObject {
		return "", fmt.Errorf("%s is an object, not a value", v.obj.name)
	}
	return v.String(), nil
}

// equal is GitHub's loose ==: values of different types are compared as
// numbers, strings without regard to case, objects by identity, and NaN
// equals nothing.
func equal(a, b Value) bool {
	if a.kind == b.kind {
		switch a.kind {
		case kindNull:
			return true
		case kindBool:
			return a.b == b.b
		case kindNumber:
			return a.n == b.n
		case kindString:
			return strings.EqualFold(a.s, b.s)
		case kindObject:
			return a.obj == b.obj
		}
	}
	if a.kind == kindObject || b.kind == kindObject {
		return false
	}
	x, y := a.number(), b.number()
	return x == y // NaN compares unequal to everything
}
