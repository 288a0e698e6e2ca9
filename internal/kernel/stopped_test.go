package kernel

import "testing"

func TestParseStopped(t *testing.T) {
	for _, c := range []struct {
		status  string
		stopped bool
	}{
		{"State:\tS (sleeping)\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n", false},
		{"State:\tT (stopped)\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n", true},
		// SIGSTOP (19) sent, not yet acted on.
		{"State:\tS (sleeping)\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000040000\n", true},
		// SIGCHLD (17) pending: not a stop.
		{"State:\tR (running)\nSigPnd:\t0000000000010000\nShdPnd:\t0000000000000000\n", false},
	} {
		got, err := parseStopped([]byte(c.status))
		if err != nil || got != c.stopped {
			t.Errorf("%q: %v, %v; want %v", c.status, got, err, c.stopped)
		}
	}
	if _, err := parseStopped([]byte("State:\tS\n")); err == nil {
		t.Error("a status without pending masks proves nothing: want an error")
	}
}
