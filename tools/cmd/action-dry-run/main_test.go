package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestDryRunOwnErrors: the dry run's own errors exit 125, never a code a
// verdict could be read from, and name what to fix.
func TestDryRunOwnErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--action", checkoutDir}, "--dir is required"},
		{[]string{"--action", checkoutDir, "--dir", t.TempDir(), "--out", t.TempDir(), "--input", "comand=x"}, `input "comand"`},
		{[]string{"--action", checkoutDir, "--dir", t.TempDir(), "--input", "mode"}, "want NAME=VALUE"},
		{[]string{"--action", t.TempDir(), "--dir", t.TempDir()}, "action.yml"},
		{[]string{"--action", checkoutDir, "--dir", t.TempDir(), "--github", "nonesuch=x"}, "github.nonesuch"},
		{[]string{"--action", checkoutDir, "--dir", t.TempDir(), "extra"}, `unexpected argument "extra"`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != exitDryRun || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), exitDryRun, tc.want)
		}
	}
}
