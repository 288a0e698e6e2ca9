package update

import (
	"slices"
	"testing"
)

func TestCodeownersLastMatchWins(t *testing.T) {
	c := ParseCodeowners([]byte(`# comment
*                      @acme/devs
*.yaml                 @acme/yaml # trailing comment
/baselines/            @acme/security
docs/**/agents.md      @acme/docs
/baselines/scratch/
`))
	for path, want := range map[string][]string{
		"main.go":                        {"@acme/devs"},
		"deep/dir/x.yaml":                {"@acme/yaml"},
		"baselines/agent.yaml":           {"@acme/security"},
		"baselines/runtimes/python.yaml": {"@acme/security"},
		"other/baselines/agent.yaml":     {"@acme/yaml"}, // /baselines/ is anchored
		"docs/a/b/agents.md":             {"@acme/docs"},
		"docs/agents.md":                 {"@acme/docs"},
		"baselines/scratch/tmp.yaml":     nil, // a line with no owner unsets them
		"baselinesX/agent.go":            {"@acme/devs"},
	} {
		if got := c.Owners(path); !slices.Equal(got, want) {
			t.Errorf("%s: owners %v, want %v", path, got, want)
		}
	}
	var none *Codeowners
	if none.Owners("x") != nil {
		t.Error("no CODEOWNERS names owners")
	}
}
