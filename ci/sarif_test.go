package ci

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema is the SARIF 2.1.0 JSON schema (see its NOTICE file).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join("testdata", "sarif-schema-2.1.0.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(path, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateSARIF(t *testing.T, s *jsonschema.Schema, out []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return s.Validate(inst)
}

func TestSARIFValidates(t *testing.T) {
	schema := sarifSchema(t)
	for name, r := range map[string]*Report{
		"violation": FromResults("", fixtureResult()),
		"clean":     FromResults("", cleanResult()),
		"ginkgo":    loadFixtureReport(t),
	} {
		var b bytes.Buffer
		if err := r.WriteSARIF(&b); err != nil {
			t.Fatal(err)
		}
		if err := validateSARIF(t, schema, b.Bytes()); err != nil {
			t.Errorf("%s: the SARIF log does not validate: %v\n%s", name, err, b.Bytes())
		}
	}
	// The schema is strict enough to catch a broken log: a region's
	// startLine is at least 1.
	bad := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"sysgate"}},"results":[{"message":{"text":"x"},
		"locations":[{"physicalLocation":{"artifactLocation":{"uri":"b.yaml"},"region":{"startLine":0}}}]}]}]}`
	if err := validateSARIF(t, schema, []byte(bad)); err == nil {
		t.Error("a startLine of 0 validated: the schema checks nothing")
	}
}

func TestSARIFGolden(t *testing.T) {
	resultGolden(t, "violation", fixtureResult(), "sarif")
	resultGolden(t, "clean", cleanResult(), "sarif")
}

// sarifLog is what the tests read back of a SARIF log: the rules and
// each result's rule and location.
type sarifLog struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID         string         `json:"id"`
					Properties map[string]any `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
					Region           struct{ StartLine int } `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, data []byte) sarifLog {
	t.Helper()
	var log sarifLog
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	return log
}

func TestSARIFRulesCarryTheRisk(t *testing.T) {
	var b bytes.Buffer
	if err := FromResults("", fixtureResult()).WriteSARIF(&b); err != nil {
		t.Fatal(err)
	}
	log := readSARIF(t, b.Bytes())
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != 4 || rules[0].ID != "syscall/ptrace" || rules[0].Properties["risk"] != "process-access" {
		t.Fatalf("rules %+v: want ptrace first, with its risk", rules)
	}
	res := log.Runs[0].Results
	if len(res) != 4 || res[0].RuleID != "syscall/ptrace" {
		t.Fatalf("results %+v", res)
	}
	if loc := res[0].Locations[0].PhysicalLocation; loc.ArtifactLocation.URI != "baselines/python-agent.yaml" || loc.Region.StartLine != 9 {
		t.Errorf("ptrace at %+v; want baselines/python-agent.yaml:9", loc)
	}
	if !strings.Contains(b.String(), `"security-severity": "8.0"`) {
		t.Error("no security-severity for the risky rule")
	}
}

func TestProgramsSARIF(t *testing.T) {
	resultGolden(t, "programs", programResult(), "sarif")
	var b bytes.Buffer
	if err := FromResults("", programResult()).WriteSARIF(&b); err != nil {
		t.Fatal(err)
	}
	if err := validateSARIF(t, sarifSchema(t), b.Bytes()); err != nil {
		t.Fatalf("the SARIF log does not validate: %v\n%s", err, b.Bytes())
	}
	log := readSARIF(t, b.Bytes())
	severity := map[string]any{}
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		severity[r.ID] = r.Properties["security-severity"]
	}
	want := map[string]any{"syscall/socket": "5.0", "program/mismatch": "9.0", "program/downloader": "9.0", "program/compiler": "8.0", "program/unlisted": "5.0"}
	if !reflect.DeepEqual(severity, want) {
		t.Errorf("rules and severities %v, want %v", severity, want)
	}
	var programs []string
	for _, res := range log.Runs[0].Results {
		if !strings.HasPrefix(res.RuleID, "program/") {
			continue
		}
		programs = append(programs, res.RuleID)
		if loc := res.Locations[0].PhysicalLocation; loc.ArtifactLocation.URI != "baselines/python-agent.yaml" || loc.Region.StartLine < 20 {
			t.Errorf("%s at %+v; want baselines/python-agent.yaml:20 or after", res.RuleID, loc)
		}
	}
	if w := []string{"program/mismatch", "program/downloader", "program/compiler", "program/unlisted"}; !reflect.DeepEqual(programs, w) {
		t.Errorf("program results %v, want %v (mismatch first, then by risk)", programs, w)
	}
}
