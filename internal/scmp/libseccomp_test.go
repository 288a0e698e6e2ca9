//go:build linux && cgo

package scmp

import (
	"fmt"
	"testing"
)

const regenerate = "regenerate the tables: go generate ./internal/scmp"

// TestTablesMatchLibseccomp holds the generated tables to the installed
// libseccomp: every arch, every number of the probe ranges, names and
// numbers both ways.
func TestTablesMatchLibseccomp(t *testing.T) {
	lib := LibseccompVersion()
	for a := range archTable {
		file := "zsyscalls_" + a.String() + "_table.go"
		table, ok := generated[a.String()]
		if !ok {
			t.Errorf("%s: no %s; %s", a, file, regenerate)
			continue
		}
		want := map[int]string{}
		for _, s := range LibseccompSyscalls(a) {
			want[s.Number] = s.Name
		}
		for _, r := range probeRanges(a) {
			for nr := r[0]; nr < r[1]; nr++ {
				if got, _ := Name(a, nr); got != want[nr] {
					t.Errorf("%s syscall %d: %s (%s) names it %q, %s %q; %s",
						a, nr, file, table.from, got, lib, want[nr], regenerate)
				}
				if n, ok := Number(a, want[nr]); want[nr] != "" && (!ok || n != nr) {
					got := "has no number for it"
					if ok {
						got = fmt.Sprintf("numbers it %d", n)
					}
					t.Errorf("%s syscall %q: %s (%s) %s, %s numbers it %d; %s",
						a, want[nr], file, table.from, got, lib, nr, regenerate)
				}
			}
		}
		if len(Names(a)) != len(want) {
			t.Errorf("%s: %s (%s) has %d syscalls, %s names %d in the probe ranges; %s",
				a, file, table.from, len(Names(a)), lib, len(want), regenerate)
		}
	}
}
