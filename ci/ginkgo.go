package ci

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// ResultEntryPrefix starts the name of the Ginkgo report entry a spec
// attaches its harness Result under ("sysgate " + agent, harness/ginkgo.go).
const ResultEntryPrefix = "sysgate "

// addGinkgo reads a Ginkgo JSON report ([]types.Report): every Result
// attached to a spec becomes a Run, and a failed spec without one becomes
// a SpecFailure.
func (r *Report) addGinkgo(data []byte, opts LoadOptions) error {
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return fmt.Errorf("decode Ginkgo report: %w", err)
	}
	for _, suite := range reports {
		for _, spec := range suite.SpecReports {
			if spec.LeafNodeType != types.NodeTypeIt {
				// Suite-level nodes fail the suite, and belong in the
				// summary if they do.
				if spec.State.Is(types.SpecStateFailureStates) {
					r.Failures = append(r.Failures, specFailure(spec, opts))
				}
				continue
			}
			found := false
			for _, e := range spec.ReportEntries {
				if !strings.HasPrefix(e.Name, ResultEntryPrefix) {
					continue
				}
				found = true
				run, err := r.addResult([]byte(e.Value.AsJSON), spec.FullText(), suite.SuitePath, opts)
				if err != nil {
					return fmt.Errorf("spec %q: %w", spec.FullText(), err)
				}
				// A passing spec with a violation asserted it: the gate
				// caught what the spec made on purpose.
				run.Expected = spec.State == types.SpecStatePassed && run.Verdict == VerdictViolation
			}
			if !found && spec.State.Is(types.SpecStateFailureStates) {
				r.Failures = append(r.Failures, specFailure(spec, opts))
			}
		}
	}
	return nil
}

func specFailure(spec types.SpecReport, opts LoadOptions) SpecFailure {
	name := spec.FullText()
	if name == "" {
		name = spec.LeafNodeType.String()
	}
	return SpecFailure{
		Spec:     name,
		State:    spec.State.String(),
		Message:  strings.TrimSpace(spec.Failure.Message),
		Location: fmt.Sprintf("%s:%d", repoPath(opts.Root, "", spec.Failure.Location.FileName), spec.Failure.Location.LineNumber),
	}
}
