package main

import (
	"errors"
	"slices"
	"testing"
)

func TestPairedRatio(t *testing.T) {
	// A slow phase hit three bare runs but only two check runs: the
	// ratio of the medians says 0.11x, every pair but one says 1.10x.
	a := samples{11, 11, 11, 110, 110}
	b := samples{10, 10, 100, 100, 100}
	if got := ratio(a.median(), b.median()); got != "0.11x" {
		t.Fatalf("ratio of medians = %s; the example no longer shows the difference", got)
	}
	if got := pairedRatio(a, b); got != "1.10x" {
		t.Errorf("pairedRatio = %s, want 1.10x", got)
	}
	if got := pairedRatio(a, b[:4]); got != "-" {
		t.Errorf("unequal lengths gave %s", got)
	}
	if got := pairedRatio(samples{1, 0}, samples{1, 1}); got != "-" {
		t.Errorf("a missing value gave %s", got)
	}
}

func TestPairedDiff(t *testing.T) {
	a := samples{2, 2, 11, 11, 11}
	b := samples{1, 1, 10, 10, 10}
	if got := pairedDiff(a, b); got != 1 {
		t.Errorf("pairedDiff = %v, want 1", got)
	}
	if got := pairedDiff(a, b[:1]); got != 0 {
		t.Errorf("unequal lengths gave %v", got)
	}
}

func TestMinMax(t *testing.T) {
	s := samples{3, 1, 2}
	if s.min() != 1 || s.max() != 3 {
		t.Errorf("min, max of %v = %v, %v", s, s.min(), s.max())
	}
	if (samples{}).min() != 0 || (samples{}).max() != 0 {
		t.Error("no samples should give 0")
	}
}

func TestBackToBack(t *testing.T) {
	var order []bool
	for rep := 0; rep < 3; rep++ {
		if err := backToBack(rep, func(on bool) error { order = append(order, on); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if want := []bool{true, false, false, true, true, false}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	calls := 0
	err := backToBack(0, func(bool) error { calls++; return errors.New("boom") })
	if err == nil || calls != 1 {
		t.Errorf("an error: %v after %d calls, want it after the first", err, calls)
	}
}
