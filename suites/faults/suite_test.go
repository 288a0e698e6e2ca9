package faults_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/suites/internal/deadline"
	"github.com/sysgate/sysgate/suites/internal/gate"
)

func TestFaults(t *testing.T) {
	RegisterFailHandler(Fail)
	defer deadline.Default(deadline.Ordinary)()
	RunSpecs(t, "sysgate fault injection")
}

// paths are built once by the first Ginkgo process and shared with all.
type paths struct {
	Sysgate string // the CLI under test
	// SysgateStops: the CLI built with -tags sysgate_faults, which stops
	// at the audit stage SYSGATE_FAULT_STOP names (settings_test.go)
	SysgateStops string
	Agent        string // testdata/agent.c, static
	Replay       string // testdata/replay.c, a static PIE (handoff_test.go)
	NoUserns     string // testdata/nouserns.c: runs a command where user namespaces cannot be made
	// MagicLink: testdata/magiclink.c, static (magiclink_test.go)
	MagicLink  string
	StopParent string // testdata/stopparent.c, static
	FileTouch  string // testdata/filetouch.c, static (files_test.go)
	NetConnect string // testdata/netconnect.c, static (network_test.go)
	MmapSwap   string // testdata/mmapswap.c, static (pinned_programs_test.go)
}

var bin paths

var _ = SynchronizedBeforeSuite(func() []byte {
	gate.RecordSettings()
	dir, err := os.MkdirTemp("", "sysgate-faults")
	Expect(err).NotTo(HaveOccurred())
	// World-readable: specs run the agent as nobody too.
	Expect(os.Chmod(dir, 0o755)).To(Succeed())
	DeferCleanup(os.RemoveAll, dir)
	p := paths{Sysgate: filepath.Join(dir, "sysgate"), Agent: filepath.Join(dir, "agent"), Replay: filepath.Join(dir, "replay"), NoUserns: filepath.Join(dir, "nouserns")}
	build := exec.Command("go", "build", "-o", p.Sysgate, "./cmd/sysgate")
	build.Dir = moduleRoot()
	out, err := build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "go build sysgate: %s", out)
	p.SysgateStops = filepath.Join(dir, "sysgate-stops")
	build = exec.Command("go", "build", "-tags", "sysgate_faults", "-o", p.SysgateStops, "./cmd/sysgate")
	build.Dir = moduleRoot()
	out, err = build.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "go build -tags sysgate_faults sysgate: %s", out)
	out, err = exec.Command("gcc", "-static", "-O1", "-pthread", "-o", p.Agent, "testdata/agent.c").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc -static agent.c: %s", out)
	out, err = exec.Command("gcc", "-static-pie", "-O1", "-o", p.Replay, "testdata/replay.c").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc -static-pie replay.c: %s", out)
	out, err = exec.Command("gcc", "-O1", "-o", p.NoUserns, "testdata/nouserns.c").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc nouserns.c: %s", out)
	p.MagicLink = filepath.Join(dir, "magiclink")
	out, err = exec.Command("gcc", "-static", "-O1", "-o", p.MagicLink, "testdata/magiclink.c").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc -static magiclink.c: %s", out)
	p.StopParent = filepath.Join(dir, "stopparent")
	out, err = exec.Command("gcc", "-static", "-O1", "-o", p.StopParent, "testdata/stopparent.c").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc -static stopparent.c: %s", out)
	p.FileTouch = filepath.Join(dir, "filetouch")
	out, err = exec.Command("gcc", "-static", "-O1", "-pthread", "-o", p.FileTouch, "testdata/filetouch.c").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc -static filetouch.c: %s", out)
	p.NetConnect = filepath.Join(dir, "netconnect")
	out, err = exec.Command("gcc", "-static", "-O1", "-pthread", "-o", p.NetConnect, "testdata/netconnect.c").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc -static netconnect.c: %s", out)
	p.MmapSwap = filepath.Join(dir, "mmapswap")
	out, err = exec.Command("gcc", "-static", "-O1", "-o", p.MmapSwap, "testdata/mmapswap.c").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "gcc -static mmapswap.c: %s", out)
	data, err := json.Marshal(p)
	Expect(err).NotTo(HaveOccurred())
	return data
}, func(data []byte) {
	Expect(json.Unmarshal(data, &bin)).To(Succeed())
})

// The leak check: no process of the suite's agent may outlive the suite,
// and no kernel setting may be left changed, whatever a spec or sysgate
// did. On process 1 once every other process
// has finished: the first function runs on each process as it finishes,
// while the others may still be running agents.
var _ = SynchronizedAfterSuite(func() {}, func() {
	if bin.Agent == "" {
		return
	}
	left := processesRunning(bin.Agent)
	var cmdlines []string
	for _, pid := range left {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		cmdlines = append(cmdlines, fmt.Sprintf("%d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	Expect(cmdlines).To(BeEmpty(), "agent processes left running after the suite")
	gate.ExpectSettingsBack()
})

// processesRunning lists the live processes whose executable is exe.
func processesRunning(exe string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if path, _ := os.Readlink("/proc/" + e.Name() + "/exe"); path == exe && len(alive([]int{pid})) == 1 {
			pids = append(pids, pid)
		}
	}
	return pids
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
