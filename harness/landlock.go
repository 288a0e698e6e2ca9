package harness

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/landlock"
)

// prepareLandlock gives an enforce run whose baselines have a files
// section a Landlock ruleset built from it (with the programs list's
// executables and their interpreters): the kernel then refuses, with
// EACCES, every file access outside it, on either backend and without
// privilege. A glob Landlock cannot express exactly is granted on its
// nearest directory (enforce is then wider than check, which stays the
// gate); a kernel without Landlock leaves the files ungated in enforce,
// and the report says so. The ruleset is closed once the agent holds its
// domain (s.undo).
func (p *runPlan) prepareLandlock(s *started) error {
	if p.mode != baseline.ModeEnforce || p.cfg.noFiles || !p.profile.FilesGated() {
		return nil
	}
	abi, err := landlock.ABI()
	if err != nil {
		p.weakened = append(p.weakened, fmt.Sprintf("enforce does not refuse files outside the baselines: %v", err))
		return nil
	}
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
	var programs []string
	for _, e := range p.profile.Programs() {
		programs = append(programs, e.Path)
	}
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
	rules = append(rules, landlock.ProgramRules(programs)...)
	rs, _, err := landlock.NewRuleset(abi, rules)
	if err != nil {
		return fmt.Errorf("enforce the files section with Landlock: %w", err)
	}
	s.undo = append(s.undo, func() { _ = rs.Close() })
	p.setup.Landlock = &kernel.LandlockSetup{FD: rs.FD(), Flags: uint32(landlock.LogFlags(abi))}
	if len(widened) > 0 {
		p.weakened = append(p.weakened, fmt.Sprintf("enforce grants %d files %s on a whole directory (Landlock cannot express it exactly; check gates them exactly)",
			len(widened), plural(len(widened), "glob", "globs")))
	}
	return nil
}
