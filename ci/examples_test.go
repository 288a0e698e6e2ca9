package ci

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The files of docs/action.md's recipe "Who reviews a baseline", under
// docs/examples: the workflow passes actionlint with its sysgate step
// checked against action.yml, CODEOWNERS gives the baselines and what
// judges them to the security team, and the ruleset requires code owner
// review and the gate.

const examples = "../docs/examples/"

func TestExampleWorkflowPassesActionlint(t *testing.T) {
	data, err := os.ReadFile(examples + "sysgate-pull-request.yml")
	if err != nil {
		t.Fatal(err)
	}
	found := lintProject(t, map[string]string{"sysgate.yml": string(data)}, func(s string) string { return s })
	for _, f := range found["sysgate.yml"] {
		t.Errorf("docs/examples/sysgate-pull-request.yml: actionlint: %v", f)
	}
	var w readmeWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.On["pull_request"]; !ok {
		t.Error("the example does not run on pull_request: nothing to compare with")
	}
	if w.Permissions["contents"] != "read" || len(w.Permissions) != 1 {
		t.Errorf("permissions %v, want contents: read only", w.Permissions)
	}
	uses := 0
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") && (s.With["persist-credentials"] != false || s.With["fetch-depth"] != 2) {
				t.Errorf("checkout with %v: want persist-credentials: false and fetch-depth: 2 (the base commit)", s.With)
			}
			if strings.HasPrefix(s.Uses, "sysgate/sysgate@") {
				uses++
				checkWith(t, stringer("docs/examples/sysgate-pull-request.yml"), s.With, actionInputs(t, actionPath), "command", "baselines", "on-widening")
			}
		}
	}
	if uses != 1 {
		t.Errorf("%d sysgate steps, want 1", uses)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

func TestExampleRuleset(t *testing.T) {
	data, err := os.ReadFile(examples + "branch-ruleset.json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Enforcement string `json:"enforcement"`
		Rules       []struct {
			Type       string `json:"type"`
			Parameters struct {
				RequireCodeOwnerReview bool `json:"require_code_owner_review"`
				Checks                 []struct {
					Context string `json:"context"`
				} `json:"required_status_checks"`
			} `json:"parameters"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("branch-ruleset.json: %v", err)
	}
	owners, gate := false, false
	for _, rule := range r.Rules {
		owners = owners || rule.Type == "pull_request" && rule.Parameters.RequireCodeOwnerReview
		for _, c := range rule.Parameters.Checks {
			// The check's name is the example workflow job's name.
			gate = gate || rule.Type == "required_status_checks" && c.Context == "sysgate"
		}
	}
	if r.Enforcement != "active" || !owners || !gate {
		t.Errorf("ruleset: enforcement %q, code owner review %v, sysgate required %v; want active, true, true", r.Enforcement, owners, gate)
	}
}
