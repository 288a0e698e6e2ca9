// Package golden compares rendered output (reports, PR bodies, OCI JSON,
// CLI output) with files under testdata, for tests only. Run a package's
// tests with -update to rewrite its golden files after reviewing a change.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata from the current output")

// Check compares got with the file at path; under -update it first
// rewrites the file with got.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the package's tests with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (rerun with -update after review)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
