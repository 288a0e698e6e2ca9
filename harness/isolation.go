package harness

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/internal/kernel"
)

// ErrUnisolated is returned (wrapped) by Run, before the agent starts,
// when the run can have no PID namespace of its own while runner
// credentials are in the environment it was started with: the agent would
// run as the caller's uid, beside the caller's processes, and read those
// credentials from their /proc/<pid>/environ (or their memory) although
// its own environment went without them. WithUnisolatedCredentials
// accepts that.
var ErrUnisolated = errors.New("no process isolation while runner credentials are in the environment")

// WithUnisolatedCredentials runs the agent even where it can have no PID
// namespace of its own while runner credentials are in the inherited
// environment (see ErrUnisolated). Every report still says that the
// caller's environment and memory were within the agent's reach.
func WithUnisolatedCredentials() Option {
	return func(c *runConfig) { c.unisolatedOK = true }
}

// credentials are the dropped variables that are secrets (tokens), not
// addresses or workflow-command files.
func credentials(dropped []string) []string {
	var out []string
	for _, name := range dropped {
		if strings.Contains(name, "TOKEN") && !strings.HasSuffix(name, "_URL") {
			out = append(out, name)
		}
	}
	return out
}

// checkIsolation refuses a run that will have no PID namespace (neither
// as root nor in a user namespace of its own) while credentials were
// dropped from the agent's environment.
func checkIsolation(setup *kernel.AgentSetup, dropped []string, ok bool) error {
	creds := credentials(dropped)
	if ok || len(creds) == 0 || setup.UserNamespace {
		return nil
	}
	why := "turned off by the caller"
	if setup.PidNamespace {
		if why = pidNamespaceUnavailable(); why == "" {
			return nil
		}
	}
	return fmt.Errorf("%w: %s %s in sysgate's environment, so most likely in its caller's too, and with no PID namespace for the run (%s) the agent, as the same uid, could read them from /proc/<pid>/environ of a process outside its run: run as root (sudo), allow unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=0 or kernel.unprivileged_userns_clone=1), or unset them for this step; --allow-unisolated runs anyway",
		ErrUnisolated, strings.Join(creds, ", "), plural(len(creds), "is", "are"), why)
}

// pidNamespaceUnavailable says why a run outside a user namespace of its
// own gets no PID namespace here ("" when it gets one), and why it could
// not have one without privilege either.
func pidNamespaceUnavailable() string {
	err := kernel.ProbePidNamespace()
	if err == nil {
		return ""
	}
	why := err.Error()
	if uerr := kernel.ProbeUserNamespace(); uerr != nil {
		why += "; without privilege: " + uerr.Error()
	}
	return why
}
