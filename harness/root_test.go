package harness

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
)

func TestParseRootBind(t *testing.T) {
	for in, want := range map[string]kernel.BindFile{
		"/srv/ws:/tmp/ws":  {Source: "/srv/ws", Target: "/tmp/ws"},
		"/tmp/ws":          {Source: "/tmp/ws", Target: "/tmp/ws"},
		"/tmp/ws/:/x/../y": {Source: "/tmp/ws", Target: "/y"},
	} {
		got, err := ParseRootBind(in)
		if err != nil || got != want {
			t.Errorf("ParseRootBind(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ws", "/srv/ws:ws", "ws:/tmp/ws"} {
		if _, err := ParseRootBind(in); err == nil || !strings.Contains(err.Error(), "--bind") {
			t.Errorf("ParseRootBind(%q) gave %v; want an error naming --bind", in, err)
		}
	}
}

// The record command of an unrecorded layer runs the agent again in the
// same root, with the same binds and directory; a run on the host's
// root gets none of the flags.
func TestArchHintInRoot(t *testing.T) {
	r := &Result{Command: []string{"/usr/bin/python3", "-c", "import json"}, Baselines: []string{"b/python3.yaml"},
		Root: "/var/cache/sysgate/rootfs/trixie-1", RootBinds: rootBindArgs([]kernel.BindFile{{Source: "/tmp/r", Target: "/tmp/r"}}),
		RootDir:     rootDir("/var/cache/sysgate/rootfs/trixie-1", "/tmp/r/ws"),
		MissingArch: true,
		Unrecorded: []baseline.UnrecordedLayer{{File: "b/python3.yaml", Line: 8, Pattern: "{os}/python-{python}.yaml",
			Path: "b/debian-13/python-3.13.yaml", Values: baseline.Selector{"os": "debian-13", "python": "3.13"}}}}
	want := "`sysgate record --merge -o b/python3.yaml --root /var/cache/sysgate/rootfs/trixie-1 --bind /tmp/r:/tmp/r --dir /tmp/r/ws -- /usr/bin/python3 -c 'import json'`"
	if got := r.ArchHint(); !strings.Contains(got, want) || !strings.HasPrefix(got, "Unrecorded environment: nobody has recorded the layer b/debian-13/python-3.13.yaml") {
		t.Errorf("ArchHint() = %s\nwant the unrecorded layer first (before the missing arch) and %s", got, want)
	}
	r.Root, r.RootBinds, r.RootDir = "", nil, ""
	if got := r.ArchHint(); strings.Contains(got, "--root") || strings.Contains(got, "--dir") {
		t.Errorf("ArchHint() of a run on the host = %s; want no --root or --dir", got)
	}
}
