package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/landlock"
)

// prepareLandlock gives an enforce run a Landlock ruleset for the
// sections its baselines gate: files (landlockPaths) and the network's
// TCP ports (landlockNet). The kernel then refuses, with EACCES, what the
// ruleset handles and does not allow, on either backend and without
// privilege. A kernel without Landlock leaves them unrefused in enforce,
// and the report says so. The ruleset is closed once the agent holds its
// domain (s.undo).
func (p *runPlan) prepareLandlock(s *started) error {
	if p.mode != baseline.ModeEnforce {
		return nil
	}
	files := !p.cfg.noFiles && p.profile.FilesGated()
	network := !p.cfg.noNetwork && p.profile.NetworkGated()
	if !files && !network {
		return nil
	}
	abi, err := landlock.ABI()
	if err != nil {
		if files {
			p.weakened = append(p.weakened, fmt.Sprintf("enforce does not refuse files outside the baselines: %v", err))
		}
		if network {
			p.weakenNetwork(err.Error())
		}
		return nil
	}
	var spec landlock.Spec
	var sections []string
	var proc []kernel.LandlockPath
	if files {
		spec.Files, spec.Paths = true, p.landlockPaths()
		sections = append(sections, "files")
		for _, r := range landlock.ProcRules(abi, spec.Paths) {
			proc = append(proc, kernel.LandlockPath{Path: r.Path, Access: uint64(r.Access)})
		}
	}
	if network {
		spec.Net = p.landlockNet(abi)
		if spec.Net.Handled != 0 {
			sections = append(sections, "network")
		}
	}
	if len(sections) == 0 {
		return nil
	}
	rs, _, err := landlock.Build(abi, spec)
	if err != nil {
		return fmt.Errorf("enforce the %s %s with Landlock: %w", strings.Join(sections, " and "), plural(len(sections), "section", "sections"), err)
	}
	s.undo = append(s.undo, func() { _ = rs.Close() })
	p.setup.Landlock = &kernel.LandlockSetup{FD: rs.FD(), Flags: uint32(landlock.LogFlags(abi)), Proc: proc}
	return nil
}

// landlockPaths turns the files section (with the programs list's
// executables and their interpreters) into path rules. A glob Landlock
// cannot express exactly is granted on its nearest directory: enforce is
// then wider than check, which stays the gate, and the report says so.
func (p *runPlan) landlockPaths() []landlock.PathRule {
	// The placeholders' values ({runtime}) are the environment's.
	p.awaitEnvironment()
	ctx := fileContext(p.agent, p.envBefore)
	var globs []landlock.FileGlob
	for _, e := range p.profile.ExpandedFiles(ctx) {
		g := landlock.FileGlob{Glob: e.Pattern}
		switch e.Op {
		case baseline.FileRead:
			g.Read = true
		case baseline.FileWrite:
			g.Write = true
		case baseline.FileExec:
			g.Exec = true
		case baseline.FileDelete:
			g.Delete = true
		}
		globs = append(globs, g)
	}
	rules, widened := landlock.RulesFromGlobs(globs)
	// Placeholders ({python}) as bound for this run (awaitEnvironment).
	programs := p.profile.ProgramPaths()
	// The agent's start is the caller's command, not the agent's doing:
	// enforce judges it as check does (a program outside the baselines is
	// reported), it must not fail to start. The first candidate that
	// exists is what the launcher will run.
	for _, c := range kernel.CandidatePaths(p.agent.Command[0], p.agent.Env) {
		if !filepath.IsAbs(c) {
			c = filepath.Join(launchDir(p.agent.Dir), c)
		}
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			programs = append(programs, c)
			break
		}
	}
	if len(widened) > 0 {
		p.weakened = append(p.weakened, fmt.Sprintf("enforce grants %d files %s on a whole directory (Landlock cannot express it exactly; check gates them exactly)",
			len(widened), plural(len(widened), "glob", "globs")))
	}
	return append(rules, landlock.ProgramRules(programs)...)
}
