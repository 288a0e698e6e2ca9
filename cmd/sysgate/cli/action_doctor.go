package cli

import (
	"errors"

	"github.com/sysgate/sysgate/cmd/sysgate/cli/action"
)

// doctor is the doctor step: sysgate doctor for the chosen backend, as
// root where the gate runs as root. When it fails the action's outputs
// say inconclusive (they fall back to these when the gate never ran).
func (a *actionStep) doctor() error {
	backend := a.inputOr("backend", "auto")
	if err := action.Backend(backend); err != nil {
		return err
	}
	a.setenv("SYSGATE_BACKEND", backend)
	if code := exitCode(a.asRoot(a.self, "doctor", "--backend", backend).Run()); code != ExitOK {
		if err := errors.Join(a.output("verdict", "inconclusive"), a.output("violations", "0")); err != nil {
			return err
		}
		return stepErrorf(code, "this machine cannot run the %s backend: the doctor's FAIL lines above say why and how to fix it", backend)
	}
	return nil
}

// wideningVerdict fails the job for a widening (on-widening: fail),
// naming the entries the widening step found.
func (a *actionStep) wideningVerdict() error {
	return stepErrorf(ExitViolation, "%s", action.WideningVerdict(a.getenv("SYSGATE_WIDENED")))
}
