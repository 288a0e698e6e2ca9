package harness

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/kernel"
)

func TestCredentialsAreTheTokens(t *testing.T) {
	got := credentials([]string{"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "GITHUB_OUTPUT", "GITHUB_TOKEN", "SYSTEM_ACCESSTOKEN"})
	want := []string{"ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GITHUB_TOKEN", "SYSTEM_ACCESSTOKEN"}
	if !slices.Equal(got, want) {
		t.Fatalf("credentials = %v, want %v", got, want)
	}
}

// A run without a PID namespace (here: turned off by the caller) is
// refused while credentials were dropped, unless allowed; one in a user
// namespace of its own, or without credentials, is not.
func TestCheckIsolation(t *testing.T) {
	off := &kernel.AgentSetup{}
	err := checkIsolation(off, []string{"GITHUB_OUTPUT", "GITHUB_TOKEN"}, false)
	if !errors.Is(err, ErrUnisolated) || !strings.Contains(err.Error(), "GITHUB_TOKEN is in sysgate's environment") || !strings.Contains(err.Error(), "--allow-unisolated") {
		t.Fatalf("checkIsolation = %v, want ErrUnisolated naming GITHUB_TOKEN and the flag", err)
	}
	for _, c := range []struct {
		setup   *kernel.AgentSetup
		dropped []string
		ok      bool
	}{
		{off, []string{"GITHUB_TOKEN"}, true},
		{off, []string{"GITHUB_OUTPUT"}, false},
		{&kernel.AgentSetup{PidNamespace: true, UserNamespace: true}, []string{"GITHUB_TOKEN"}, false},
	} {
		if err := checkIsolation(c.setup, c.dropped, c.ok); err != nil {
			t.Errorf("checkIsolation(%+v, %v, %v) = %v, want nil", *c.setup, c.dropped, c.ok, err)
		}
	}
}
