package ci

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// TestTextShimAndDrift: the text report names the shim the run started
// the interpreter for, and a changed interpreter version also when no
// syscall is new (the run is clean, or only programs differ).
func TestTextShimAndDrift(t *testing.T) {
	r := fixtureResult()
	r.Verdict, r.Violations, r.Leaked = verdict.VerdictClean, verdict.Violations{}, nil
	r.Shim = &verdict.ShimResolution{Manager: "pyenv", Shim: "/root/.pyenv/shims/python3",
		Interpreter: "/root/.pyenv/versions/3.11.7/bin/python3", PathAdded: "/root/.pyenv/versions/3.11.7/bin"}
	r.Drift = &verdict.Drift{Recorded: true, Changes: []baseline.EnvChange{{Part: "python", Was: "3.11.2", Now: "3.11.7"}}}
	var b bytes.Buffer
	if err := WriteText(&b, r, Palette{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"pyenv shim: started /root/.pyenv/versions/3.11.7/bin/python3", // a check: briefly
		"environment drift: python 3.11.2 → 3.11.7 since the baselines were recorded",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// With new syscalls the drift note says it once, with its advice.
	r = fixtureResult()
	r.Drift = &verdict.Drift{Recorded: true, Changes: []baseline.EnvChange{{Part: "python", Was: "3.11.2", Now: "3.11.7"}}}
	b.Reset()
	if err := WriteText(&b, r, Palette{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "environment drift:"); n != 1 {
		t.Errorf("drift named %d times, want once:\n%s", n, b.String())
	}
}
