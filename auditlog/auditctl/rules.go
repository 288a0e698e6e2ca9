package auditctl

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
)

// ruleHolds is the part of tuning.json that belongs to audit syscall
// rules: syscall rules record nothing while audit is disabled, so the
// first process that adds rules saves enabled and turns audit on, and the
// last one out (or the recovery after it crashed) restores it.
type ruleHolds struct {
	SavedEnabled uint32   `json:"saved_enabled"`
	Holders      []holder `json:"holders"`
}

// ruleFile is /run/sysgate/rules-PID-N.json: one run's rules exactly as
// sent to the kernel, written before the first is added, so that the
// owner's watchdog or the next process removes them after a crash.
type ruleFile struct {
	Owner holder   `json:"owner"`
	Rules []string `json:"rules"` // hex wire format (struct audit_rule_data)
}

// ErrRuleExists: the kernel already has an identical rule (another run
// drew the same login uid); draw another and retry.
var ErrRuleExists = errors.New("audit rule exists")

// ErrLocked: audit is locked (enabled=2) until reboot; no rule can be
// added or removed.
var ErrLocked = errors.New("audit configuration locked")

// Owner names the process holding rules, by pid and start time, for its
// watchdog (RecoverOwner).
type Owner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// Self returns this process as an Owner.
func Self() (Owner, error) {
	h, err := self()
	return Owner(h), err
}

var ruleSeq atomic.Uint64

// procRules counts this process's AddRules holds: the first joins the
// enabled hold, the last leaves it.
var procRules struct {
	mu    sync.Mutex
	holds int
}

// AddRules turns audit on (saving enabled for the last holder on the
// machine to restore), records rules in a state file, then adds them.
// release deletes exactly those rules (never anyone else's), removes the
// file and, for this process's last hold, leaves the enabled hold. If
// the process dies instead, RecoverOwner (its watchdog) or the next
// AddRules or AcquireTuning anywhere on the machine cleans up. The state
// file's path is returned for the watchdog's log.
func AddRules(rules [][]byte) (release func() error, err error) {
	me, err := self()
	if err != nil {
		return nil, err
	}
	procRules.mu.Lock()
	defer procRules.mu.Unlock()
	if procRules.holds == 0 {
		if err := withTuningLock(func(st *tuningState, c *control) error { return enterRules(st, c, me) }); err != nil {
			return nil, err
		}
	}
	procRules.holds++
	path := stateFile(fmt.Sprintf("rules-%d-%d.json", me.PID, ruleSeq.Add(1)))
	if err := addRuleFile(path, me, rules); err != nil {
		return nil, errors.Join(err, dropRuleHold())
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			err = removeRuleFile(path)
			procRules.mu.Lock()
			defer procRules.mu.Unlock()
			err = errors.Join(err, dropRuleHold())
		})
		return err
	}, nil
}

// dropRuleHold ends one of this process's holds; the caller holds
// procRules.mu.
func dropRuleHold() error {
	procRules.holds--
	if procRules.holds > 0 {
		return nil
	}
	me, err := self()
	if err != nil {
		return err
	}
	return withTuningLock(func(st *tuningState, c *control) error { return leaveRules(st, c, me) })
}

func enterRules(st *tuningState, c *control, me holder) error {
	if st.Rules == nil {
		cur, err := c.status()
		if err != nil {
			return err
		}
		if cur.Enabled == 2 {
			return &Error{Kind: ErrLocked, Problem: "audit is locked (enabled=2, auditctl -e 2) until reboot: syscall rules can be neither added nor removed",
				Fix: "remove -e 2 from /etc/audit/rules.d and reboot, or run without file observation (--no-files)"}
		}
		st.Rules = &ruleHolds{SavedEnabled: cur.Enabled, Holders: []holder{me}}
		// Saved before anything changes: a crash from here on is recovered.
		if err := persistTuning(st); err != nil {
			return err
		}
		if cur.Enabled == 1 {
			return nil
		}
		return c.setEnabled(true)
	}
	st.Rules.Holders = append(st.Rules.Holders, me)
	return persistTuning(st)
}

// leaveRules drops this process's enabled hold; like leaveTuning, a
// process no longer listed changes nothing.
func leaveRules(st *tuningState, c *control, me holder) error {
	if st.Rules == nil || !slices.Contains(st.Rules.Holders, me) {
		return fmt.Errorf("leave the audit enabled hold: pid %d is not a holder in %s (its hold was dropped by another process); enabled left as it is", me.PID, stateFile("tuning.json"))
	}
	st.Rules.Holders = slices.DeleteFunc(st.Rules.Holders, func(h holder) bool { return h == me })
	if len(st.Rules.Holders) > 0 {
		return persistTuning(st)
	}
	return restoreEnabled(st, c)
}

func restoreEnabled(st *tuningState, c *control) error {
	if saved := st.Rules.SavedEnabled; saved <= 1 {
		if err := c.setEnabled(saved == 1); err != nil {
			return err
		}
		if err := adoptRestored(func(s *kernelSnapshot) { s.Enabled = saved }); err != nil {
			return err
		}
	}
	st.Rules = nil
	return persistTuning(st)
}

func addRuleFile(path string, me holder, rules [][]byte) error {
	rf := ruleFile{Owner: me}
	for _, r := range rules {
		rf.Rules = append(rf.Rules, hex.EncodeToString(r))
	}
	if err := writeJSON(path, rf); err != nil {
		return err
	}
	stage(StageRulesSaved)
	c, err := dialControl()
	if err != nil {
		return errors.Join(err, os.Remove(path))
	}
	defer c.Close()
	for i, r := range rules {
		if err := c.client.AddRule(r); err != nil {
			// go-libaudit turns EEXIST into this text, not a wrapped errno.
			if err.Error() == "rule exists" {
				err = ErrRuleExists
			}
			err = fmt.Errorf("add audit rule %d of %d: %w", i+1, len(rules), ClassifySocketErr(err))
			for _, added := range rules[:i] {
				err = errors.Join(err, c.deleteRule(added))
			}
			return errors.Join(err, os.Remove(path))
		}
	}
	stage(StageRulesAdded)
	return nil
}

// removeRuleFile deletes the rules a state file lists, then the file.
func removeRuleFile(path string) error {
	c, err := dialControl()
	if err != nil {
		return err
	}
	defer c.Close()
	return c.removeRuleFile(path)
}

func (c *control) removeRuleFile(path string) error {
	var rf ruleFile
	found, err := readJSON(path, &rf)
	if err != nil || !found {
		return err
	}
	var wires [][]byte
	for _, h := range rf.Rules {
		wire, err := hex.DecodeString(h)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := c.deleteRule(wire); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		wires = append(wires, wire)
	}
	// go-libaudit's DeleteRule reads the kernel's answer but not its
	// errno: the list afterwards is the proof the rules are gone.
	left, err := c.client.GetRules()
	if err != nil {
		return fmt.Errorf("list audit rules: %w", ClassifySocketErr(err))
	}
	for _, l := range left {
		if slices.ContainsFunc(wires, func(w []byte) bool { return bytes.Equal(w, l) }) {
			return fmt.Errorf("%s: the kernel kept an audit rule sysgate deleted", path)
		}
	}
	stage(StageRulesDeleted)
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// deleteRule removes one rule; a rule already gone (removed before a
// crash) is no error.
func (c *control) deleteRule(wire []byte) error {
	if err := c.client.DeleteRule(wire); err != nil {
		return fmt.Errorf("delete audit rule: %w", ClassifySocketErr(err))
	}
	return nil
}

// recoverRules removes the rules of dead owners (and of dead, a process
// known to be gone though /proc may still show it) and drops them from
// the enabled hold, restoring enabled when no holder is left. The caller
// holds tuning.lock.
func recoverRules(st *tuningState, c *control, dead holder) error {
	files, err := filepath.Glob(stateFile("rules-*.json"))
	if err != nil {
		return err
	}
	for _, f := range files {
		var rf ruleFile
		if found, err := readJSON(f, &rf); err != nil || !found {
			continue // half-written by a live owner, or just removed
		}
		if rf.Owner != dead && rf.Owner.alive() {
			continue
		}
		if err := c.removeRuleFile(f); err != nil {
			return fmt.Errorf("remove audit rules left by a crashed sysgate: %w", err)
		}
	}
	if st.Rules == nil {
		return nil
	}
	st.Rules.Holders = slices.DeleteFunc(st.Rules.Holders, func(h holder) bool { return h == dead || !h.alive() })
	if len(st.Rules.Holders) > 0 {
		return nil
	}
	if err := restoreEnabled(st, c); err != nil {
		return fmt.Errorf("restore audit enabled left by a crashed sysgate: %w", err)
	}
	return nil
}

// RecoverOwner cleans up after owner, known to be dead (its watchdog saw
// its pipe close): its rules are removed and it leaves the enabled and
// backlog holds, which are restored if it was the last holder. Other
// dead owners are recovered too.
func RecoverOwner(owner Owner) error {
	unlock, err := lockTuningFile()
	if err != nil {
		return err
	}
	defer unlock()
	return withTuningState(func(st *tuningState, c *control) error {
		if err := recoverTuning(st, c, holder(owner)); err != nil {
			return err
		}
		return persistTuning(st)
	})
}

// ListRules returns the kernel's audit rules in wire format (tests use it
// to prove that other rules are left alone).
func ListRules() ([][]byte, error) {
	c, err := dialControl()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	rules, err := c.client.GetRules()
	if err != nil {
		return nil, fmt.Errorf("list audit rules: %w", ClassifySocketErr(err))
	}
	return rules, nil
}
