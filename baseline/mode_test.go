package baseline

import (
	"encoding/json"
	"testing"
)

func TestModeAndActionNames(t *testing.T) {
	for _, m := range []Mode{ModeRecord, ModeCheck, ModeEnforce} {
		got, err := ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
		data, err := json.Marshal(struct{ M Mode }{m})
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ M Mode }
		if err := json.Unmarshal(data, &back); err != nil || back.M != m {
			t.Errorf("JSON round trip of %v: %s -> %v, %v", m, data, back.M, err)
		}
	}
	if _, err := json.Marshal(struct{ M Mode }{}); err == nil {
		t.Errorf("the zero Mode marshalled")
	}
	if _, err := ParseMode("audit"); err == nil {
		t.Errorf("unknown mode parsed")
	}
	for _, a := range []Action{ActionErrno, ActionKill, ActionLog} {
		if got, err := ParseAction(a.String()); err != nil || got != a {
			t.Errorf("ParseAction(%q) = %v, %v", a, got, err)
		}
	}
	if _, err := ParseAction("trap"); err == nil {
		t.Errorf("unknown action parsed")
	}
}
