package ci

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
)

// A run whose agent kept a capability (--keep-cap) is named as a weaker
// gate in every format: text, JSON, annotations, step summary.
func TestKeptCapabilitiesInEveryFormat(t *testing.T) {
	res := &harness.Result{Agent: "debugger", Mode: baseline.ModeCheck, Verdict: harness.VerdictClean, Arch: scmp.X86_64,
		Duration: time.Second, KeptCapabilities: []string{"CAP_SYS_PTRACE"}}
	r := render(t, "kept-capabilities", spec{text: "debugger attaches", result: res}, spec{text: "debugger attaches again", result: res})
	var text, js, ann, sum bytes.Buffer
	if err := WriteText(&text, res, Palette{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteAnnotations(&ann); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "annotations": ann.String(), "summary": sum.String()} {
		if !strings.Contains(strings.ToLower(out), "weakened gate") || !strings.Contains(out, "CAP_SYS_PTRACE") {
			t.Errorf("%s does not name the kept capability:\n%s", name, out)
		}
	}
	if !strings.Contains(js.String(), `"kept_capabilities": [`) {
		t.Errorf("JSON has no kept_capabilities:\n%s", js.String())
	}
	if n := strings.Count(ann.String(), "::warning"); n != 1 {
		t.Errorf("%d warnings for one agent's runs, want 1:\n%s", n, ann.String())
	}
}
