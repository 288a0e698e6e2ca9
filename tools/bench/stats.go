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

// min and max are 0 for no samples, like median.
func (s samples) min() float64 {
	if len(s) == 0 {
		return 0
	}
	return slices.Min(s)
}

func (s samples) max() float64 {
	if len(s) == 0 {
		return 0
	}
	return slices.Max(s)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ratio prints a/b as "1.23x", or "-" when either is missing.
func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// pairedRatio is the median of a[i]/b[i]: each repeat's run against the
// bare run made right before it, so slow phases of a shared machine hit
// both sides of a pair rather than one side of the medians.
func pairedRatio(a, b samples) string {
	r, ok := pairedRatioOf(a, b)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

// pairedRatioOf is pairedRatio's number; ok is false when the samples
// do not pair or one is missing.
func pairedRatioOf(a, b samples) (float64, bool) {
	if len(a) != len(b) || len(a) == 0 {
		return 0, false
	}
	r := make(samples, 0, len(a))
	for i := range a {
		if a[i] <= 0 || b[i] <= 0 {
			return 0, false
		}
		r = append(r, a[i]/b[i])
	}
	return r.median(), true
}

// backToBack runs run(true) and run(false) one after the other for
// repeat rep, run(true) first in even repeats: the two sides of a pair
// take turns at the warmer caches.
func backToBack(rep int, run func(on bool) error) error {
	for k := 0; k < 2; k++ {
		if err := run((rep+k)%2 == 0); err != nil {
			return err
		}
	}
	return nil
}

// pairedDiff is the median of a[i]-b[i] (see pairedRatio); 0 when the
// lengths differ.
func pairedDiff(a, b samples) float64 {
	if len(a) != len(b) {
		return 0
	}
	d := make(samples, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d.median()
}
