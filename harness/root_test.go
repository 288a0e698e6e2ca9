package harness

import (
	"slices"
	"strings"
	"testing"

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

// The flags that run the agent again in the same root: its binds as
// --bind takes them, and its directory in the root (none on the host's).
func TestRootBindArgsAndDir(t *testing.T) {
	if got := rootBindArgs([]kernel.BindFile{{Source: "/tmp/r", Target: "/tmp/r"}}); !slices.Equal(got, []string{"/tmp/r:/tmp/r"}) {
		t.Errorf("rootBindArgs = %q, want [/tmp/r:/tmp/r]", got)
	}
	if got := rootDir("/var/cache/sysgate/rootfs/trixie-1", "/tmp/r/ws"); got != "/tmp/r/ws" {
		t.Errorf("rootDir in a root = %q, want /tmp/r/ws", got)
	}
	if got := rootDir("", "/tmp/r/ws"); got != "" {
		t.Errorf("rootDir on the host's root = %q, want none", got)
	}
}
