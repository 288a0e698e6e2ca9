package cli

import (
	"bytes"
	"io"
	"testing"

	"github.com/sysgate/sysgate/internal/kernel"
)

func TestPalette(t *testing.T) {
	master, tty, err := kernel.OpenPty()
	if err != nil {
		t.Skipf("[pty]: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	var buf bytes.Buffer
	for _, tc := range []struct {
		mode, noColor string
		terminal      bool
		want          bool
	}{
		{"auto", "", true, true},
		{"auto", "1", true, false}, // NO_COLOR: any non-empty value
		{"auto", "", false, false}, // a pipe or file: never ANSI codes
		{"always", "1", false, true},
		{"never", "", true, false},
	} {
		c := &Command{Env: []string{"NO_COLOR=" + tc.noColor, "TERM=xterm"}}
		var w io.Writer = &buf
		if tc.terminal {
			w = tty
		}
		got, err := c.palette(tc.mode, w)
		if err != nil || got.Color != tc.want {
			t.Errorf("--color=%s NO_COLOR=%q terminal %v: colour %v, %v; want %v", tc.mode, tc.noColor, tc.terminal, got.Color, err, tc.want)
		}
	}
	if _, err := (&Command{}).palette("yes", &buf); err == nil {
		t.Error("--color=yes: no error")
	}
}
