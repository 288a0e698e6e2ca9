package baseline

import "fmt"

// Mode is how a compiled filter treats the syscalls of a run.
type Mode uint8

// Modes; the zero value is invalid.
const (
	// ModeRecord logs every syscall: nothing is allowed silently, so a run
	// learns the full set.
	ModeRecord Mode = iota + 1
	// ModeCheck allows the baseline and logs everything else: the gate.
	ModeCheck
	// ModeEnforce allows the baseline and refuses everything else (ERRNO
	// or KILL): proves an exported profile does not break the agent.
	ModeEnforce
)

var modeNames = map[Mode]string{ModeRecord: "record", ModeCheck: "check", ModeEnforce: "enforce"}

func (m Mode) String() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// MarshalText writes the mode's name, for JSON results.
func (m Mode) MarshalText() ([]byte, error) {
	if _, ok := modeNames[m]; !ok {
		return nil, fmt.Errorf("marshal mode: invalid mode %d", uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText is the inverse of MarshalText.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ParseMode maps "record", "check" or "enforce" to a Mode.
func ParseMode(s string) (Mode, error) {
	for m, name := range modeNames {
		if name == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q (record, check or enforce)", s)
}

// Action is what a filter or an exported profile does with a syscall
// outside the baseline in enforce mode.
type Action uint8

// Actions; the zero value means "the default" (ActionErrno) where an
// option takes one.
const (
	ActionErrno Action = iota + 1 // fail with EPERM
	ActionKill                    // kill the process
	ActionLog                     // allow and log (OCI export only)
)

var actionNames = map[Action]string{ActionErrno: "errno", ActionKill: "kill", ActionLog: "log"}

func (a Action) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// ParseAction maps "errno", "kill" or "log" to an Action.
func ParseAction(s string) (Action, error) {
	for a, name := range actionNames {
		if name == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown action %q (errno, kill or log)", s)
}
