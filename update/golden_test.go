package update

import (
	"path/filepath"
	"testing"

	goldenfile "github.com/sysgate/sysgate/internal/golden"
)

// golden compares got with testdata/name.golden, or rewrites the file
// under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name+".golden"), got)
}
