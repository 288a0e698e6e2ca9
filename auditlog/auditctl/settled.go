package auditctl

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/elastic/go-libaudit/v2/rule"
)

// Settings are the kernel settings sysgate changes for a run or a fault
// test and gives back.
type Settings struct {
	Enabled         uint32
	BacklogLimit    uint32
	BacklogWaitTime uint32
	ActionsLogged   string
}

func (s Settings) String() string {
	return fmt.Sprintf("enabled=%d backlog_limit=%d backlog_wait_time=%d actions_logged=%q",
		s.Enabled, s.BacklogLimit, s.BacklogWaitTime, s.ActionsLogged)
}

// Settled returns the settings the kernel goes back to once every holder
// on the machine (runs, rule holders, an ExclusiveKernel test) has let go
// or been recovered after a crash: what /run/sysgate saved where a hold
// exists, the kernel's own values otherwise. Two calls compare equal
// whatever runs in between, unless something was left behind: that is
// the leak check of the test suites (auditctltest.CheckSettled).
//
// Orphans are the kernel's audit rules keyed sysgate-* that no rule file
// lists: nothing will ever remove them.
func Settled() (s Settings, orphans []string, err error) {
	unlock, err := lockTuningFile()
	if err != nil {
		return s, nil, err
	}
	defer unlock()
	cur, err := ReadStatus()
	if err != nil {
		return s, nil, err
	}
	logged, err := ReadActionsLogged()
	if err != nil {
		return s, nil, err
	}
	var st tuningState
	if _, err := readJSON(stateFile("tuning.json"), &st); err != nil {
		return s, nil, err
	}
	var snap kernelSnapshot
	exclusive, err := readJSON(stateFile("exclusive.json"), &snap)
	if err != nil {
		return s, nil, err
	}
	s = Settings{cur.Enabled, cur.BacklogLimit, cur.BacklogWaitTime, strings.TrimSpace(logged)}
	if exclusive {
		s = Settings{snap.Enabled, snap.BacklogLimit, snap.BacklogWaitTime, strings.TrimSpace(snap.ActionsLogged)}
	}
	// Holds taken before the exclusive snapshot (or without one) saved
	// the values from before them; holds taken inside it are undone by
	// the snapshot.
	if !exclusive || snap.HeldTuning {
		if len(st.Holders) > 0 {
			s.BacklogLimit, s.BacklogWaitTime = st.Saved.BacklogLimit, st.Saved.BacklogWaitTime
		}
		if st.Rules != nil {
			s.Enabled = st.Rules.SavedEnabled
		}
	}
	orphans, err = orphanRules()
	return s, orphans, err
}

// orphanRules lists the kernel's sysgate rules that no rule file lists.
// A run writes its file before adding its rules and removes it after
// deleting them, so a rule listed between two reads of the files is in
// one of them; a rule missing from both in two rounds is an orphan (a
// run in flight draws a fresh login uid, so it cannot look orphaned
// twice).
func orphanRules() ([]string, error) {
	round := func() ([]string, error) {
		before, err := ruleFileWires()
		if err != nil {
			return nil, err
		}
		kernel, err := ListRules()
		if err != nil {
			return nil, err
		}
		after, err := ruleFileWires()
		if err != nil {
			return nil, err
		}
		var out []string
		for _, w := range kernel {
			text, err := rule.ToCommandLine(rule.WireFormat(w), true)
			if err != nil || !strings.Contains(text, "key=sysgate-") {
				continue
			}
			listed := func(ws [][]byte) bool {
				return slices.ContainsFunc(ws, func(f []byte) bool { return bytes.Equal(f, w) })
			}
			if !listed(before) && !listed(after) {
				out = append(out, text)
			}
		}
		return out, nil
	}
	first, err := round()
	if err != nil || len(first) == 0 {
		return nil, err
	}
	second, err := round()
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(second, func(r string) bool { return !slices.Contains(first, r) }), nil
}

func ruleFileWires() ([][]byte, error) {
	files, err := filepath.Glob(stateFile("rules-*.json"))
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, f := range files {
		var rf ruleFile
		if found, err := readJSON(f, &rf); err != nil || !found {
			continue // being written or removed
		}
		for _, h := range rf.Rules {
			if w, err := hex.DecodeString(h); err == nil {
				out = append(out, w)
			}
		}
	}
	return out, nil
}

// LeftBehind compares Settled now with an earlier call: an error names
// every setting that will not go back to its earlier value and every new
// orphaned rule.
func LeftBehind(before Settings, beforeOrphans []string) error {
	now, orphans, err := Settled()
	if err != nil {
		return err
	}
	var diffs []string
	if now.Enabled != before.Enabled {
		diffs = append(diffs, fmt.Sprintf("enabled %d, was %d", now.Enabled, before.Enabled))
	}
	if now.BacklogLimit != before.BacklogLimit {
		diffs = append(diffs, fmt.Sprintf("backlog_limit %d, was %d", now.BacklogLimit, before.BacklogLimit))
	}
	if now.BacklogWaitTime != before.BacklogWaitTime {
		diffs = append(diffs, fmt.Sprintf("backlog_wait_time %d, was %d", now.BacklogWaitTime, before.BacklogWaitTime))
	}
	if now.ActionsLogged != before.ActionsLogged {
		diffs = append(diffs, fmt.Sprintf("kernel.seccomp.actions_logged %q, was %q", now.ActionsLogged, before.ActionsLogged))
	}
	for _, r := range orphans {
		if !slices.Contains(beforeOrphans, r) {
			diffs = append(diffs, "audit rule no state file lists (nothing will remove it): "+r)
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("kernel settings left behind (compared with what %s saved, once every holder lets go): %s", StateDir, strings.Join(diffs, "; "))
}
