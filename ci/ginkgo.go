package ci

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/verdict"
)

// ginkgoReport is the part of a Ginkgo JSON report (--json-report, an
// array of github.com/onsi/ginkgo/v2/types.Report) that ci reads. Decoding
// it here keeps Ginkgo out of the CLI binary; the field names are Ginkgo's
// (v2: Go field names, no JSON tags), and node types and spec states are
// encoded as their names.
type ginkgoReport struct {
	SuitePath   string
	SpecReports []ginkgoSpec
}

type ginkgoSpec struct {
	ContainerHierarchyTexts []string
	LeafNodeText            string
	LeafNodeType            string // "It", "BeforeSuite", ...
	State                   string // "passed", "failed", ...
	Failure                 struct {
		Message  string
		Location struct {
			FileName   string
			LineNumber int
		}
	}
	ReportEntries []struct {
		Name  string
		Value struct{ AsJSON string }
	}
}

// ginkgoNodeIt is the leaf node type of a spec (types.NodeTypeIt); others
// are suite-level nodes.
const ginkgoNodeIt = "It"

// failed is types.SpecState.Is(types.SpecStateFailureStates).
func (s *ginkgoSpec) failed() bool {
	switch s.State {
	case "failed", "timedout", "aborted", "panicked", "interrupted":
		return true
	}
	return false
}

// fullText is types.SpecReport.FullText: the container texts and the
// leaf's, empty ones left out.
func (s *ginkgoSpec) fullText() string {
	var texts []string
	for _, t := range append(append([]string{}, s.ContainerHierarchyTexts...), s.LeafNodeText) {
		if t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, " ")
}

// addGinkgo reads a Ginkgo JSON report: every Result attached to a spec
// (verdict.ReportEntryName) becomes a Run, and a failed spec without one
// becomes a SpecFailure.
func (r *Report) addGinkgo(data []byte, opts LoadOptions) error {
	var reports []ginkgoReport
	if err := json.Unmarshal(data, &reports); err != nil {
		return fmt.Errorf("decode Ginkgo report: %w", err)
	}
	for _, suite := range reports {
		for _, spec := range suite.SpecReports {
			if spec.LeafNodeType != ginkgoNodeIt {
				// Suite-level nodes fail the suite, and belong in the
				// summary if they do.
				if spec.failed() {
					r.Failures = append(r.Failures, specFailure(&spec, opts))
				}
				continue
			}
			found := false
			for _, e := range spec.ReportEntries {
				if e.Name != verdict.ReportEntryName {
					continue
				}
				found = true
				run, err := r.addResult([]byte(e.Value.AsJSON), spec.fullText(), suite.SuitePath, opts)
				if err != nil {
					return fmt.Errorf("spec %q: %w", spec.fullText(), err)
				}
				// A passing spec with a violation asserted it: the gate
				// caught what the spec made on purpose.
				run.Expected = spec.State == "passed" && run.Outcome() == VerdictViolation
			}
			if !found && spec.failed() {
				r.Failures = append(r.Failures, specFailure(&spec, opts))
			}
		}
	}
	return nil
}

func specFailure(spec *ginkgoSpec, opts LoadOptions) SpecFailure {
	name := spec.fullText()
	if name == "" {
		name = OrDash(spec.LeafNodeType)
	}
	loc := spec.Failure.Location
	return SpecFailure{
		Spec:     name,
		State:    spec.State,
		Message:  strings.TrimSpace(spec.Failure.Message),
		Location: fmt.Sprintf("%s:%d", RepoPath(opts.Root, "", loc.FileName), loc.LineNumber),
	}
}
