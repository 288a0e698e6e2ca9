package main

import (
	"strings"
	"testing"
)

func TestTargetMet(t *testing.T) {
	version := target{limitMS: 2.5}
	check := target{overBare: true, limitMS: 4}
	for _, tc := range []struct {
		name string
		t    target
		r    cliRow
		want string
	}{
		{"median under", version, cliRow{runs: samples{2, 2.5, 9}}, "yes"},
		{"median over", version, cliRow{runs: samples{2, 2.6, 2.6}}, "no"},
		// The medians are 12 apart; every pair is 3 apart.
		{"paired under", check, cliRow{runs: samples{4, 4, 104, 104, 104}, bare: samples{1, 1, 1, 101, 101}}, "yes"},
		{"paired over", check, cliRow{runs: samples{6, 6, 6}, bare: samples{1, 1, 1}}, "no"},
		{"no bare runs", check, cliRow{runs: samples{1, 1}}, "-"},
		{"no runs", version, cliRow{}, "-"},
		{"no target", target{}, cliRow{runs: samples{100}}, "-"},
	} {
		if got := tc.t.met(tc.r); got != tc.want {
			t.Errorf("%s: met = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTargetString(t *testing.T) {
	for _, tc := range []struct {
		t    target
		want string
	}{
		{target{limitMS: 2.5}, "median <= 2.5 ms"},
		{target{overBare: true, limitMS: 4}, "<= 4 ms over bare"},
		{target{}, "-"},
	} {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.t, got, tc.want)
		}
	}
}

func TestCLIRowCells(t *testing.T) {
	r := cliRow{name: "sysgate check -b B -- /bin/true", runs: samples{6, 5, 7}, vs: "/bin/true", bare: samples{1, 1, 2},
		target: target{overBare: true, limitMS: 4}}
	want := "sysgate check -b B -- /bin/true\t6.000\t5.000\t7.000\t/bin/true\t+5.000\t5.00x\t<= 4 ms over bare\tno\t"
	if got := r.cells(); got != want {
		t.Errorf("cells:\n got %q\nwant %q", got, want)
	}
	bare := cliRow{name: "/bin/true", runs: samples{1, 1, 2}}
	if got, want := bare.cells(), "/bin/true\t1.000\t1.000\t2.000\t-\t-\t-\t-\t-\t"; got != want {
		t.Errorf("cells of an unpaired row:\n got %q\nwant %q", got, want)
	}
	if n, want := strings.Count(r.cells(), "\t"), strings.Count(cliHeader, "\t"); n != want {
		t.Errorf("%d cells, the header has %d", n, want)
	}
}

func TestParseSections(t *testing.T) {
	got, err := parseSections("cli, rss")
	if err != nil || len(got) != 2 || !got["cli"] || !got["rss"] {
		t.Errorf("parseSections(cli, rss) = %v, %v", got, err)
	}
	if _, err := parseSections("cli,startpu"); err == nil || !strings.Contains(err.Error(), `"startpu"`) {
		t.Errorf("a misspelt section gave %v", err)
	}
}
