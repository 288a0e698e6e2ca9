package update

import (
	"os"
	"slices"
	"testing"
)

func TestExampleCodeowners(t *testing.T) {
	data, err := os.ReadFile("../docs/examples/CODEOWNERS")
	if err != nil {
		t.Fatal(err)
	}
	c := ParseCodeowners(data)
	for _, path := range []string{"baselines/my-agent.yaml", "baselines/runtimes/python.yaml", ".github/workflows/sysgate.yml", ".github/CODEOWNERS"} {
		if got := c.Owners(path); !slices.Equal(got, []string{"@my-org/security"}) {
			t.Errorf("%s: owners %v, want the security team alone", path, got)
		}
	}
	if got := c.Owners("agent.py"); slices.Contains(got, "@my-org/security") {
		t.Errorf("agent.py: owners %v: the recipe asks the security team for baselines only", got)
	}
}
