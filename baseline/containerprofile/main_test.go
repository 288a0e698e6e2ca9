package containerprofile

import (
	"fmt"
	"os"
	"testing"
)

// TestMain runs the tests from the baseline folder: the container profiles
// they read (baseline/testdata/profiles) are shared with the CLI's compare
// goldens, which name them by that path.
func TestMain(m *testing.M) {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
