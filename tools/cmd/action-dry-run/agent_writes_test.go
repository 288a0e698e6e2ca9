package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysgate/sysgate/auditlog/auditctl/auditctltest"
	"github.com/sysgate/sysgate/internal/testutil"
	"github.com/sysgate/sysgate/tools/internal/actionrun"
)

// Issue 33, items 1 and 2: nothing the agent can write decides the
// verdict. The job runs as a non-root user with sudo, as on a hosted
// runner: that user owns the action's checkout under _actions, the tool
// cache with sysgate's binary, the other actions' code and the runner's
// file-command directory, and the agent runs as that same user. The agent
// (testdata/tamper.py) opens an AF_INET socket its baseline lacks, then
// writes one of those; the job must end red, with verdict=violation, and
// the write refused (EROFS) in the agent's mount namespace.

// jobWorld is one job's runner layout, owned by the job's user.
type jobWorld struct {
	out     string // --out: runner-temp, tool-cache
	action  string // <work>/_actions/sysgate/sysgate/dry-run
	actions string // <work>/_actions
}

func newJobWorld(t *testing.T, e *dryRunEnv, u testutil.SudoUser, name string) jobWorld {
	t.Helper()
	work := filepath.Join(e.base, "work-"+name)
	w := jobWorld{out: filepath.Join(e.base, "out-"+name), actions: filepath.Join(work, "_actions")}
	w.action = filepath.Join(w.actions, "sysgate", "sysgate", "dry-run")
	copyAction(t, e.checkout, w.action)
	if err := chownTreeTo(work, int(u.UID), int(u.GID)); err != nil {
		t.Fatal(err)
	}
	return w
}

// jobUserEnv is the job's user's environment: its home and a Go build
// cache of its own.
func jobUserEnv(t *testing.T, e *dryRunEnv, u testutil.SudoUser) []string {
	t.Helper()
	gocache := filepath.Join(e.base, "gocache-job")
	if err := os.MkdirAll(gocache, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(gocache, int(u.UID), int(u.GID)); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + u.Home, "GOCACHE=" + gocache, "USER=" + u.Name}
}

func chownTreeTo(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

func TestAgentWritesNothingTheVerdictReads(t *testing.T) {
	e := newDryRunEnv(t)
	auditctltest.HoldTuning(t)
	u := testutil.RequireSudoUser(t)
	tamper, err := os.ReadFile("testdata/tamper.py")
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(e.base, "agent")
	writeFiles(t, ws, map[string]string{"tamper.py": string(tamper)})
	gitRepo(t, ws)

	// The record: the same writes against scratch copies, so the baseline
	// has every syscall of the attack but the socket. Once as root (it
	// builds sysgate into the shared cache), once as the job's user.
	scratch := filepath.Join(e.base, "scratch")
	writeFiles(t, scratch, map[string]string{
		"action.sh":                        "#!/bin/sh\n",
		"tool/sysgate/k/sysgate":           "#!/bin/sh\n",
		"index/dist/index.js":              "//\n",
		"_runner_file_commands/set_env_1":  "",
		"_runner_file_commands/add_path_1": "",
	})
	targets := func(action, binary, index, filecmd string) string {
		return fmt.Sprintf("action=%s binary=%s index=%s filecmd=%s", action, binary, index, filecmd)
	}
	recordArgs := targets(filepath.Join(scratch, "action.sh"), filepath.Join(scratch, "tool/sysgate/*/sysgate"),
		filepath.Join(scratch, "index/dist/index.js"), filepath.Join(scratch, "_runner_file_commands"))
	record := []string{"command=" + python + " tamper.py " + recordArgs, "baselines=agent.yaml", "agent=tamper", "mode=record"}
	if j := e.run(t, runOpts{dir: ws, inputs: record}); j.code != 0 {
		t.Fatalf("record as root: exit %d\n%s", j.code, j.log)
	}
	for _, d := range []string{ws, scratch} {
		if err := chownTreeTo(d, int(u.UID), int(u.GID)); err != nil {
			t.Fatal(err)
		}
	}
	userEnv := jobUserEnv(t, e, u)
	rw := newJobWorld(t, e, u, "record")
	if j := e.run(t, runOpts{dir: ws, action: rw.action, out: rw.out, asUser: int(u.UID), asGroup: int(u.GID), env: userEnv, inputs: record}); j.code != 0 {
		t.Fatalf("record as the job's user: exit %d\n%s", j.code, j.log)
	}

	for _, backend := range []string{"audit", "notify"} {
		for _, kind := range []string{"action", "binary", "index", "filecmd"} {
			t.Run(backend+"/"+kind, func(t *testing.T) {
				w := newJobWorld(t, e, u, backend+"-"+kind)
				pattern := map[string]string{
					"action":  filepath.Join(w.action, "scripts", "action.sh"),
					"binary":  filepath.Join(w.out, "tool-cache", "sysgate", "*", "sysgate"),
					"index":   filepath.Join(w.actions, "actions", "upload-artifact", "*", "dist", "index.js"),
					"filecmd": filepath.Join(w.out, "runner-temp", "_runner_file_commands"),
				}[kind]
				j := e.run(t, runOpts{dir: ws, action: w.action, out: w.out, asUser: int(u.UID), asGroup: int(u.GID), env: userEnv,
					inputs: []string{"command=" + python + " tamper.py violate " + kind + "=" + pattern,
						"baselines=agent.yaml", "agent=tamper", "strict=false", "backend=" + backend}})
				gate := j.stepLog(t, j.step(t, "gate"))
				if !strings.Contains(gate, "attack "+kind+": refused") || strings.Contains(gate, "attack "+kind+": written") {
					t.Errorf("the agent's write (%s) was not refused:\n%s", kind, grepLines(gate, "attack "))
				} else if !strings.Contains(gate, ": EROFS") {
					t.Errorf("the write was refused, but not by a read-only mount (EROFS):\n%s", grepLines(gate, "attack "))
				}
				// The report header names what the agent could not write.
				named := map[string]string{"action": w.action, "binary": filepath.Join(w.out, "tool-cache"),
					"index": w.actions, "filecmd": pattern}[kind]
				if header := grepLines(gate, "read-only for the agent: "); !strings.Contains(header, named) {
					t.Errorf("the report header does not name %s read-only: %q", named, header)
				}
				if !strings.Contains(gate, "backend: "+backend) {
					t.Errorf("the gate did not run on %s:\n%s", backend, gate)
				}
				if j.res.Job != actionrun.Failure || j.code != 1 {
					t.Errorf("job %s exit %d: want a red job with exit 1 (the violation)", j.res.Job, j.code)
				}
				if v, n := j.res.Output("verdict"), j.res.Output("violations"); v != "violation" || n == "0" || n == "" {
					t.Errorf("outputs verdict=%q violations=%q: want violation and at least 1 (forged?)", v, n)
				}
				switch kind {
				case "action":
					got, _ := os.ReadFile(pattern)
					want, _ := os.ReadFile(filepath.Join(e.checkout, "scripts", "action.sh"))
					if !bytes.Equal(got, want) {
						t.Errorf("the action's action.sh changed during the job")
					}
				case "binary":
					bins, _ := filepath.Glob(pattern)
					for _, b := range bins {
						got, _ := os.ReadFile(b)
						if bytes.HasPrefix(got, []byte("#!")) {
							t.Errorf("the cached sysgate %s was replaced by the agent's script", b)
						}
					}
				case "index":
					if len(j.res.TamperedActions) > 0 {
						t.Errorf("a later action's code changed under _actions: %v", j.res.TamperedActions)
					}
				case "filecmd":
					for _, kv := range j.res.Env {
						if kv.Key == "NODE_OPTIONS" {
							t.Errorf("later steps see NODE_OPTIONS=%s (from the agent)", kv.Value)
						}
					}
					if slices.Contains(j.res.Path, "/tmp/sysgate-attack-bin") {
						t.Errorf("later steps have the agent's directory on PATH: %v", j.res.Path)
					}
				}
			})
		}
	}
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
