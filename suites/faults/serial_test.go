package faults_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// TestKernelSpecsAreSerial loads the suite's spec tree (this test binary,
// again, under --dry-run: no node runs, no root needed) and checks that
// every spec labelled as taking the whole kernel (or an address of the
// machine's) is Serial, and that there are such specs, so ginkgo -p never
// runs one beside another spec.
func TestKernelSpecsAreSerial(t *testing.T) {
	if os.Getenv("SYSGATE_FAULTS_DRY_RUN") != "" {
		t.Skip("inside the dry run")
	}
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaults$", "-ginkgo.dry-run", "-ginkgo.no-color",
		"-ginkgo.json-report="+report)
	cmd.Env = append(os.Environ(), "SYSGATE_FAULTS_DRY_RUN=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		t.Fatal(err)
	}
	serial := map[string]bool{}
	for _, r := range reports {
		for _, spec := range r.SpecReports {
			if spec.LeafNodeType != types.NodeTypeIt {
				continue
			}
			for _, label := range []string{"exclusive-kernel", "global-audit-rule", "machine-address"} {
				if slices.Contains(spec.Labels(), label) {
					serial[label] = true
					if !spec.IsSerial {
						t.Errorf("%s (%s) is labelled %s but is not Serial", spec.FullText(), spec.LeafNodeLocation, label)
					}
				}
			}
		}
	}
	for _, label := range []string{"exclusive-kernel", "global-audit-rule", "machine-address"} {
		if !serial[label] {
			t.Errorf("no spec labelled %s in the dry run", label)
		}
	}
}
