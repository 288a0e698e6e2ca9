package main

import (
	"fmt"
	"slices"
	"time"
)

// samples are repeated measurements of one thing.
type samples []float64

func (s samples) median() float64 {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ratio prints a/b as "1.23x", or "-" when either is missing.
func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}
