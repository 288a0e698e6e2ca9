package export

import (
	"fmt"
	"os"
	"testing"

	"github.com/sysgate/sysgate/internal/testutil"
)

var writeFile = testutil.WriteFile

// TestMain runs the tests from the baseline folder: their inputs are
// baseline's own test stacks, and the goldens (baseline/testdata/oci,
// baseline/testdata/spo) record the stacks' paths as given, relative to
// that folder.
func TestMain(m *testing.M) {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
