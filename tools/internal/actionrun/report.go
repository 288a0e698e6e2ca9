package actionrun

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Print writes the job's end as the dry run's last lines: each step's
// outcome, the action's outputs, the annotations and the job's result.
func (r *Result) Print(w io.Writer) {
	fmt.Fprintln(w, "\nsteps:")
	for _, s := range r.Steps {
		status := s.Outcome
		if s.Outcome == Failure {
			status = fmt.Sprintf("failure (exit %d)", s.ExitCode)
		}
		id := s.ID
		if id == "" {
			id = "-"
		}
		fmt.Fprintf(w, "  %2d. %-20s %-8s %s\n", s.Index, status, id, s.Name)
	}
	fmt.Fprintln(w, "outputs:")
	for _, kv := range r.Outputs {
		fmt.Fprintf(w, "  %s=%s\n", kv.Key, kv.Value)
	}
	if len(r.Annotations) > 0 {
		fmt.Fprintln(w, "annotations:")
		for _, a := range r.Annotations {
			fmt.Fprintf(w, "  %s\n", a)
		}
	}
	fmt.Fprintf(w, "step summary: %s\nartifacts: %s\n", r.Summary, r.Artifacts)
	if r.Job == Success {
		fmt.Fprintln(w, "job: success")
	} else {
		fmt.Fprintf(w, "job: failure (exit %d)\n", r.ExitCode)
	}
}

// WriteJSON writes the result to path, for scripts and tests.
func (r *Result) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
