package gatetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

func TestEnvOptionsRefusesWhatItCannotRead(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvMode: "learn"}, "$SYSGATE_MODE"},
		{map[string]string{EnvMode: "record"}, "needs $SYSGATE_OBSERVATIONS"},
		{map[string]string{EnvBackend: "ebpf"}, "$SYSGATE_BACKEND"},
		{map[string]string{EnvUser: "runner"}, "$SYSGATE_USER"},
		{map[string]string{EnvUser: "1001:staff"}, "$SYSGATE_USER"},
		{map[string]string{EnvMode: "record", EnvObservations: "/tmp/obs", EnvIncremental: "yes"}, "$SYSGATE_INCREMENTAL"},
	} {
		_, err := EnvOptions("agent", func(k string) string { return c.env[k] })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want one naming %s", c.env, err, c.want)
		}
	}
	// A record run writes <dir>/<name>.json: a name that is not a file
	// name is refused rather than written elsewhere.
	rec := map[string]string{EnvMode: "record", EnvObservations: "/tmp/obs"}
	for _, name := range []string{"", "..", "a/b"} {
		if _, err := EnvOptions(name, func(k string) string { return rec[k] }); err == nil {
			t.Errorf("agent name %q accepted for an observation file", name)
		}
	}
	opts, err := EnvOptions("agent", func(string) string { return "" })
	if err != nil || len(opts) != 0 {
		t.Errorf("empty environment: %d options, %v; want none", len(opts), err)
	}
	full := map[string]string{EnvMode: "record", EnvObservations: "/tmp/obs", EnvBackend: "notify", EnvUser: "1001", EnvIncremental: "1"}
	opts, err = EnvOptions("agent", func(k string) string { return full[k] })
	if err != nil || len(opts) != 5 {
		t.Errorf("every variable set: %d options, %v; want 5 (backend, mode, observation file, incremental, user)", len(opts), err)
	}
	if u, g, err := parseIDs("1001:121"); err != nil || u != 1001 || g != 121 {
		t.Errorf("parseIDs(1001:121) = %d, %d, %v", u, g, err)
	}
}

// setenv sets a variable for the rest of the spec.
func setenv(k, v string) {
	old, had := os.LookupEnv(k)
	Expect(os.Setenv(k, v)).To(Succeed())
	DeferCleanup(func() {
		if had {
			os.Setenv(k, old)
		} else {
			os.Unsetenv(k)
		}
	})
}

var _ = Describe("the environment the sysgate action sets", func() {
	It("records on the backend and as the user it names, into its observation directory", SpecTimeout(time.Minute), func(ctx SpecContext) {
		obs := GinkgoT().TempDir()
		setenv(EnvMode, "record")
		setenv(EnvObservations, obs)
		setenv(EnvBackend, "notify")
		setenv(EnvUser, "65534:65534")
		r, err := Run(ctx, harness.Agent{Name: "env-true", Command: []string{"/bin/true"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Conclusive()).To(BeTrue(), "%s", r)
		Expect(r.Mode).To(Equal(baseline.ModeRecord))
		Expect(r.Backend).To(Equal(verdict.BackendNotify))
		Expect(r.UID).To(BeEquivalentTo(65534))
		Expect(r.ObservationFile).To(Equal(filepath.Join(obs, "env-true.json")))
		Expect(filepath.Join(obs, "env-true.json")).To(BeARegularFile())
		Expect(r).To(StayWithinBaseline())
	})

	It("lets the spec's own options win", SpecTimeout(time.Minute), func(ctx SpecContext) {
		setenv(EnvBackend, "notify")
		setenv(EnvMode, "enforce")
		r, err := Run(ctx, harness.Agent{Name: "env-true", Command: []string{"/bin/true"}},
			harness.WithBackend(verdict.BackendAudit), harness.WithMode(baseline.ModeRecord))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Backend).To(Equal(verdict.BackendAudit))
		Expect(r.Mode).To(Equal(baseline.ModeRecord))
	})

	It("runs nothing when a variable is unreadable", SpecTimeout(time.Minute), func(ctx SpecContext) {
		setenv(EnvMode, "learn")
		r, err := Run(ctx, harness.Agent{Name: "env-true", Command: []string{"/bin/true"}})
		Expect(err).To(MatchError(ContainSubstring("$SYSGATE_MODE")))
		Expect(r).To(BeNil())
	})
})
