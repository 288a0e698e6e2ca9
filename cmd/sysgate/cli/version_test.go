package cli

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	installed := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}
	built := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}}}
	for _, tc := range []struct {
		name, stamped string
		info          *debug.BuildInfo
		ok            bool
		want, rev     string
	}{
		{"no build info", "", nil, false, "(devel)", ""},
		{"go install ...@v1.2.3", "", installed, true, "v1.2.3", ""},
		{"go build in a clone", "", built, true, "(devel)", "abc123"},
		{"make release", "v0.1.0-3-gabc123-dirty", built, true, "v0.1.0-3-gabc123-dirty", "abc123"},
		{"stamped without build info", "v0.1.0", nil, false, "v0.1.0", ""},
	} {
		v, r := buildVersion(tc.stamped, tc.info, tc.ok)
		if v != tc.want || r != tc.rev {
			t.Errorf("%s: got %q (%q), want %q (%q)", tc.name, v, r, tc.want, tc.rev)
		}
	}
}
