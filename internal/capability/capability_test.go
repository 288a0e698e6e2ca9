package capability

import "testing"

func TestNamesRoundTrip(t *testing.T) {
	for c := range len(names) {
		if got, ok := ByName(Name(c)); !ok || got != c {
			t.Errorf("ByName(Name(%d) = %q) = %d, %v", c, Name(c), got, ok)
		}
	}
	cases := []struct {
		name string
		want int
		ok   bool
	}{
		{"CAP_SYS_ADMIN", 21, true}, {"SYS_ADMIN", 21, true}, {"sys_admin", 21, true},
		{"CAP_CHECKPOINT_RESTORE", 40, true}, {"CAP_NOPE", -1, false}, {"", -1, false},
	}
	for _, tc := range cases {
		if got, ok := ByName(tc.name); got != tc.want || ok != tc.ok {
			t.Errorf("ByName(%q) = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if got := Name(99); got != "CAP_99" {
		t.Errorf("Name(99) = %q", got)
	}
}
