package update

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
)

// copyBaselines copies testdata/baselines into a temporary repository
// root and returns the root.
func copyBaselines(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	err := filepath.WalkDir("testdata/baselines", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, "baselines", path[len("testdata/baselines/"):])
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// shard builds one shard's observation of agent on arch.
func shard(agent string, arch scmp.Arch, runs int, names ...string) *baseline.Observation {
	o := baseline.NewObservation(agent)
	o.Runs = runs
	for i, n := range names {
		o.Add(arch, n, uint64(i+1))
	}
	return o
}

func writeShards(t *testing.T, obs ...*baseline.Observation) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i, o := range obs {
		p := filepath.Join(dir, string(rune('a'+i))+"-"+o.Agent+".json")
		if err := baseline.WriteObservation(p, o); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// updateShards are two x86_64 shards and one aarch64 shard of a runtime
// base (node) and an agent extending it: added, removed and risky
// syscalls in both files and on both arches.
func updateShards() []*baseline.Observation {
	nodeX86 := []string{"close", "exit_group", "futex", "mmap", "openat", "read", "statx"} // -getrandom +statx
	nodeArm := []string{"close", "exit_group", "futex", "mmap", "openat", "read", "statx", "io_uring_setup"}
	return []*baseline.Observation{
		shard("node", scmp.X86_64, 2, nodeX86...),
		shard("mcp-filesystem", scmp.X86_64, 2, append(nodeX86, "write", "fsync", "openat2", "socket(AF_UNIX)", "socket(AF_INET)")...),
		shard("mcp-filesystem", scmp.X86_64, 1, append(nodeX86, "write", "ptrace", "flock", "socket(AF_UNIX)", "socket(AF_PACKET)")...),
		shard("node", scmp.AArch64, 2, nodeArm...),
		shard("mcp-filesystem", scmp.AArch64, 3, append(nodeArm, "write", "openat2")...), // -fsync
	}
}

func TestBaselineUpdatePRBody(t *testing.T) {
	root := copyBaselines(t)
	obs := mergeShards(t, updateShards()...)
	u, err := Plan(obs, Options{Dir: filepath.Join(root, "baselines"), Root: root, Write: true,
		Arches: []scmp.Arch{scmp.X86_64, scmp.AArch64}})
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	if err := u.WritePRBody(&body, PRBodyOptions{RunURL: "https://github.com/o/r/actions/runs/1", BaselineDir: "baselines"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "update.pr-body.md", body.Bytes())
	for _, f := range []string{"agents/mcp-filesystem.yaml", "runtimes/node.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, "baselines", f))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "update."+filepath.Base(f), data)
	}
	// The rewritten files are what check takes: the updated agent stack
	// allows every observed syscall.
	p, err := baseline.Load(filepath.Join(root, "baselines/agents/mcp-filesystem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if d := baseline.Diff(p, obs["mcp-filesystem"]); len(d.New) != 0 {
		t.Errorf("after the update, still new: %+v", d.New)
	}
	// The placeholder reason of a risky entry is flagged until reviewed.
	unreviewed := 0
	for _, w := range p.Warnings() {
		if w.Kind == baseline.KindUnreviewed {
			unreviewed++
		}
	}
	if unreviewed != 3 { // ptrace and socket(AF_PACKET) in the agent file, io_uring_setup in node.yaml
		t.Errorf("%d unreviewed warnings, want 3: %v", unreviewed, p.Warnings())
	}
	// A second update from the same observations changes nothing.
	again, err := Plan(obs, Options{Dir: filepath.Join(root, "baselines"), Root: root, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range again.Files {
		if f.Changed() {
			t.Errorf("second update changes %s: +%v -%v", f.File, f.Added, f.Removed)
		}
	}
}

func TestUpdateRefusesUnexpectedAgentAndArch(t *testing.T) {
	for name, tc := range map[string]struct {
		obs    []*baseline.Observation
		arches []scmp.Arch
	}{
		"unknown agent":   {obs: append(updateShards(), shard("mcp-unknown", scmp.X86_64, 1, "read"))},
		"unexpected arch": {obs: append(updateShards(), shard("node", scmp.I386, 1, "read"))},
		"arch not given":  {obs: updateShards(), arches: []scmp.Arch{scmp.X86_64}},
		"missing arch":    {obs: updateShards()[:3], arches: []scmp.Arch{scmp.X86_64, scmp.AArch64}},
	} {
		t.Run(name, func(t *testing.T) {
			root := copyBaselines(t)
			before, _ := os.ReadFile(filepath.Join(root, "baselines/runtimes/node.yaml"))
			_, err := Plan(mergeShards(t, tc.obs...), Options{Dir: filepath.Join(root, "baselines"), Root: root, Write: true, Arches: tc.arches})
			if !errors.Is(err, ErrUnexpected) {
				t.Fatalf("err = %v, want ErrUnexpected", err)
			}
			after, _ := os.ReadFile(filepath.Join(root, "baselines/runtimes/node.yaml"))
			if !bytes.Equal(before, after) {
				t.Error("a refused update wrote a baseline file")
			}
		})
	}
}

// TestUpdateOfOneArchKeepsTheOthers: a workstation records its own arch
// only; without --arch the other arch's sections stay as they are.
func TestUpdateOfOneArchKeepsTheOthers(t *testing.T) {
	root := copyBaselines(t)
	dir := filepath.Join(root, "baselines")
	obs := mergeShards(t, updateShards()[:3]...) // x86_64 only
	u, err := Plan(obs, Options{Dir: dir, Root: root, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range u.Files {
		for _, r := range append(f.Added, f.Removed...) {
			if r.Arch != scmp.X86_64 {
				t.Errorf("%s: %s %s changed by an x86_64-only update", f.File, r.Arch, r.Syscall)
			}
		}
	}
	p, err := baseline.Load(filepath.Join(dir, "agents/mcp-filesystem.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fsync", "write", "read"} {
		if !p.Allows(scmp.AArch64, name) {
			t.Errorf("aarch64 %s dropped by an x86_64-only update", name)
		}
	}
	if !p.Allows(scmp.X86_64, "openat2") || p.Allows(scmp.X86_64, "getrandom") {
		t.Error("the x86_64 lists were not rewritten from the observation")
	}
}

func TestUpdateKeepUnseen(t *testing.T) {
	root := copyBaselines(t)
	dir := filepath.Join(root, "baselines")
	u, err := Plan(mergeShards(t, updateShards()...), Options{Dir: dir, Root: root, KeepUnseen: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range u.Files {
		if len(f.Removed) != 0 {
			t.Errorf("%s: KeepUnseen removed %v", f.File, f.Removed)
		}
	}
}

// mergeShards writes the shards' observation files and merges them.
func mergeShards(t *testing.T, shards ...*baseline.Observation) map[string]*baseline.Observation {
	t.Helper()
	obs, err := MergeObservations(writeShards(t, shards...)...)
	if err != nil {
		t.Fatal(err)
	}
	return obs
}

// TestUpdateAcceptsArchOnlyInTheBase: an agent whose file has no aarch64
// list of its own (its runtime base has one) may be observed on aarch64.
func TestUpdateAcceptsArchOnlyInTheBase(t *testing.T) {
	root := copyBaselines(t)
	dir := filepath.Join(root, "baselines")
	agent := filepath.Join(dir, "agents/mcp-filesystem.yaml")
	doc, err := baseline.ParseDocument(agent, mustRead(t, agent))
	if err != nil {
		t.Fatal(err)
	}
	doc.Syscalls = doc.Syscalls[1:] // drop aarch64: only node.yaml has it now
	if doc.Syscalls[0].Arch != scmp.X86_64 {
		t.Fatalf("fixture order changed: %v", doc.Syscalls[0].Arch)
	}
	if err := baseline.Save(agent, doc); err != nil {
		t.Fatal(err)
	}
	obs := mergeShards(t, shard("mcp-filesystem", scmp.AArch64, 1, "close", "read", "openat2"))
	u, err := Plan(obs, Options{Dir: dir, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Files) != 1 || len(u.Files[0].Added) != 1 || u.Files[0].Added[0].Syscall != "openat2" {
		t.Errorf("update: %+v", u.Files)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPRBodyProgramChanges: a file's new and removed programs, risky ones
// also at the top, and a file whose only change is a program. baseline.Diff
// fills the programs of a real update; these are constructed.
func TestPRBodyProgramChanges(t *testing.T) {
	agent, node := "baselines/agents/mcp-filesystem.yaml", "baselines/runtimes/node.yaml"
	u := &Update{Arches: []scmp.Arch{scmp.X86_64}, Files: []FileChange{
		{Agent: "node", File: node, RuntimeBase: true, Runs: 2,
			AddedPrograms: []baseline.ProgramFinding{{Program: "/usr/bin/node", Count: 2, File: node}}},
		{Agent: "mcp-filesystem", File: agent, Runs: 3,
			Added: []baseline.Finding{{Arch: scmp.X86_64, Syscall: "statx", File: agent, Line: 12}},
			AddedPrograms: []baseline.ProgramFinding{
				{Program: "/usr/bin/curl", Count: 3, Risk: risk.Downloader, Level: risk.High, File: agent},
				{Program: "/usr/bin/jq", Count: 1, File: agent}},
			RemovedPrograms: []baseline.ProgramFinding{{Program: "/usr/bin/wget", Risk: risk.Downloader, Level: risk.High, File: agent, Line: 20}}},
	}}
	var body bytes.Buffer
	if err := u.WritePRBody(&body, PRBodyOptions{BaselineDir: "baselines"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "update.programs.pr-body.md", body.Bytes())
	if !u.Files[0].Changed() {
		t.Error("a file whose only change is a new program does not change")
	}
}

// An incremental shard (a record run that allowed its baselines) saw only
// what they lack: the update keeps every unseen entry without being told,
// even with other shards full, and the pull request says stale entries
// were not checked.
func TestUpdateFromAnIncrementalShardKeepsUnseen(t *testing.T) {
	root := copyBaselines(t)
	dir := filepath.Join(root, "baselines")
	shards := updateShards()
	full, err := Plan(mergeShards(t, shards...), Options{Dir: dir, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, f := range full.Files {
		removed += len(f.Removed)
	}
	if removed == 0 || full.Incremental {
		t.Fatalf("a full update removes %d entries (incremental %v): the test proves nothing", removed, full.Incremental)
	}
	shards[1].Incremental = true
	u, err := Plan(mergeShards(t, shards...), Options{Dir: dir, Root: root, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Incremental {
		t.Errorf("update from an incremental shard not marked incremental")
	}
	added := 0
	for _, f := range u.Files {
		added += len(f.Added)
		if len(f.Removed) != 0 || len(f.RemovedPrograms) != 0 {
			t.Errorf("%s: an incremental update removed %v %v", f.File, f.Removed, f.RemovedPrograms)
		}
	}
	if added == 0 {
		t.Errorf("an incremental update added nothing")
	}
	var b bytes.Buffer
	if err := u.WritePRBody(&b, PRBodyOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("Stale entries not checked (incremental)")) {
		t.Errorf("pull-request body does not say stale entries were not checked:\n%s", b.String())
	}
}
