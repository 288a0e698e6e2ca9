package ci

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// A run whose agent kept a capability (--keep-cap) is named as a weaker
// gate in every format: text, JSON, annotations, step summary.
func TestKeptCapabilitiesInEveryFormat(t *testing.T) {
	res := &verdict.Result{Agent: "debugger", Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean, Arch: scmp.X86_64,
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

// make security-test without root: every run's resolver could not listen
// on port 53, and bite specs ran once more without the files gate to show
// the hole. The summary says each weakening once, the bites' briefly and
// not as an alarm (issue 46, item 7).
func TestWeakeningsAreNamedOnce(t *testing.T) {
	const port53 = "sysgate may not listen on port 53 of a loopback address"
	var r Report
	for i := range 36 {
		res := &verdict.Result{Agent: fmt.Sprintf("agent-%02d", i), Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean,
			Arch: scmp.X86_64, NamesUnrecorded: port53}
		r.Runs = append(r.Runs, Run{Result: res, Spec: fmt.Sprintf("spec %d", i)})
	}
	for _, agent := range []string{"python-bite-key", "mcp-bite-key"} {
		caught := &verdict.Result{Agent: agent, Mode: baseline.ModeCheck, Verdict: verdict.VerdictViolation, Arch: scmp.X86_64,
			FileViolations: []verdict.FileViolation{{FileTouch: verdict.FileTouch{Op: baseline.FileRead, Path: "/root/.ssh/id_rsa", Count: 1}}}}
		open := &verdict.Result{Agent: agent, Mode: baseline.ModeCheck, Verdict: verdict.VerdictClean, Arch: scmp.X86_64,
			Weakened: []string{"--no-files: file accesses were not gated"}}
		r.Runs = append(r.Runs, Run{Result: caught, Spec: agent + " fails", Expected: true}, Run{Result: open, Spec: agent + " fails"})
	}
	var sum, ann bytes.Buffer
	if err := r.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteAnnotations(&ann); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(sum.String(), port53); n != 1 {
		t.Errorf("the port-53 note %d times in the summary, want once:\n%s", n, sum.String())
	}
	if n := strings.Count(ann.String(), port53); n != 1 {
		t.Errorf("the port-53 note %d times in the annotations, want once:\n%s", n, ann.String())
	}
	if n := strings.Count(sum.String(), "Weakened gate"); n != 1 {
		t.Errorf("%d weakened-gate alarms, want 1 (the port-53 one; the bites weaken on purpose):\n%s", n, sum.String())
	}
	if n := strings.Count(sum.String(), "--no-files"); n != 1 || !strings.Contains(sum.String(), "Weakened on purpose") {
		t.Errorf("the bites' --no-files %d times, want once, as on purpose:\n%s", n, sum.String())
	}
	if strings.Contains(ann.String(), "--no-files") {
		t.Errorf("an annotation warns of a weakening on purpose:\n%s", ann.String())
	}
}

// A kept CAP_NET_RAW can set a source route (issue 43, item 12): the
// report says the network section then judges only the call's address.
func TestKeptNetRawNamesSourceRoutes(t *testing.T) {
	for _, c := range []struct {
		kept []string
		want bool
	}{{[]string{"CAP_NET_RAW"}, true}, {[]string{"CAP_NET_ADMIN", "CAP_NET_RAW"}, true}, {[]string{"CAP_SYS_PTRACE"}, false}} {
		got := WeakenedBanner(&verdict.Result{KeptCapabilities: c.kept})
		if strings.Contains(got, "source route") != c.want {
			t.Errorf("kept %v: banner %q, want a source-route note: %v", c.kept, got, c.want)
		}
	}
}
