package touch

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
)

// The test binary doubles as a run that installs rules and is then
// killed: with childEnv set, TestMain installs and waits to be killed.
const childEnv = "SYSGATE_TOUCH_TEST_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		if loop, ok := strings.CutPrefix(v, "loop:"); ok {
			syscallLoop(loop)
		}
		installAndHang(v)
	}
	os.Exit(auditctltest.RunChecked(m))
}

func installAndHang(auidArg string) {
	auid, err := strconv.ParseUint(auidArg, 10, 32)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	in, err := Install(uint32(auid), Files|Network, Native)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	fmt.Println(in.WatchdogPID())
	select {} // until SIGKILL
}
