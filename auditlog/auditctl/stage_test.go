package auditctl

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/elastic/go-libaudit/v2/rule"

	"github.com/sysgate/sysgate/internal/testutil"
)

// TestSIGKILLAtEachStageLeavesNothing kills a process holding the run
// tuning and a rule at each stage (as the last holder: this test holds
// the runs lock exclusively) and lets the next holder recover: every
// setting settles where it was, and the rule and its file are gone.
func TestSIGKILLAtEachStageLeavesNothing(t *testing.T) {
	testutil.RequireAudit(t)
	stages := []Stage{StageTuningSaved, StageTuned, StageRulesSaved, StageRulesAdded, StageRulesDeleted, StageLeaving, StageRestoring}
	for i, stage := range stages {
		t.Run(string(stage), func(t *testing.T) {
			holdExclusive(t)
			before, orphans, err := Settled()
			if err != nil {
				t.Fatal(err)
			}
			auid := strconv.Itoa(2147483100 + i)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=stop-at", childEnv+"_STAGE="+string(stage), childEnv+"_AUID="+auid)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			line, err := bufio.NewReader(out).ReadString('\n')
			if strings.TrimSpace(line) != "stopped" {
				t.Fatalf("child never reached %s: said %q (%v)", stage, line, err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			// The next holder on the machine recovers the dead one.
			release, err := AcquireTuning()
			if err != nil {
				t.Fatal(err)
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			if err := LeftBehind(before, orphans); err != nil {
				t.Errorf("killed at %s: %v", stage, err)
			}
			rules, err := ListRules()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range rules {
				if text, _ := rule.ToCommandLine(rule.WireFormat(w), true); strings.Contains(text, "key=sysgate-"+auid) {
					t.Errorf("killed at %s: its rule is still in the kernel: %s", stage, text)
				}
			}
			if left, _ := filepath.Glob(stateFile("rules-" + strconv.Itoa(cmd.Process.Pid) + "-*.json")); len(left) > 0 {
				t.Errorf("killed at %s: its rule file is left: %v", stage, left)
			}
			var st tuningState
			if _, err := readJSON(stateFile("tuning.json"), &st); err != nil {
				t.Fatal(err)
			}
			for _, h := range st.Holders {
				if h.PID == cmd.Process.Pid {
					t.Errorf("killed at %s: still a holder in tuning.json", stage)
				}
			}
		})
	}
}
