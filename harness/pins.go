package harness

import (
	"fmt"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/verdict"
)

// programSums hashes the programs execs name, shared by every run of the
// process: a program is read once until it changes (kernel.FileKey).
// 4096 keys hold any agent's programs; a run of more clears it.
var programSums = kernel.NewContentCache(4096)

// pinWanted says which programs a run hashes: those a baseline entry
// pins, and those the agent could replace (all of them when it runs as
// root; else the ones a user other than root can write, such as its own
// scripts), which record pins. A system program only root can replace is
// matched by path: its content differs from machine to machine (a
// baseline pinning /usr/bin/node would fail on the next runner image),
// and hashing it costs a read of all of it at every run (about 90 ms for
// node's 99 MB here).
//
// A program the agent could replace is hashed at every exec
// (kernel.SumFresh): it can rewrite it in place, and on tmpfs through a
// mapping without moving any time a cache key holds. Only a pinned
// program it cannot write comes from the cache.
//
// The workspace's programs held at the run's start (heldPrograms) are
// hashed at every exec too.
func pinWanted(p *baseline.Profile, agentRoot bool, held map[string]string) func(string) kernel.Sum {
	return func(path string) kernel.Sum {
		if _, ok := held[path]; ok || agentRoot || baseline.ProgramWritable(path) != "" {
			return kernel.SumFresh
		}
		if e, ok := p.LookupProgram(path); ok && len(e.SHA256) > 0 {
			return kernel.SumCached
		}
		return kernel.SumSkip
	}
}

// pinMismatches checks each program of an exec against the content its
// baseline entry pins, and a program of the workspace against its
// content at the run's start (held): what is wrong, one line per
// program, with the run it concerns; none when every program is one the
// baselines recorded (or pin nothing) and the run started with.
func pinMismatches(p *baseline.Profile, held map[string]string, e *execSeen) (runs []verdict.ProgramRun, why []string) {
	for _, r := range e.runs {
		sum := ""
		if len(r.SHA256) > 0 {
			sum = r.SHA256[0]
		}
		if msg := heldMismatch(held, r.Path, sum); msg != "" {
			runs, why = append(runs, r), append(why, "content: "+msg)
			continue
		}
		entry, ok := p.LookupProgram(r.Path)
		if !ok {
			continue
		}
		if msg := entry.CheckContent(r.Path, sum); msg != "" {
			runs, why = append(runs, r), append(why, "content: "+msg)
		}
	}
	return runs, why
}

// writableNotes are the report's notes on programs that ran from a file
// a user other than root can replace (the agent, when it runs as that
// user): whether a baseline entry pins their content.
func writableNotes(runs []verdict.ProgramRun, p *baseline.Profile) []string {
	var notes []string
	for _, run := range runs {
		if !strings.HasPrefix(run.Path, "/") {
			continue // memfd: no file to replace
		}
		who := baseline.ProgramWritable(run.Path)
		if who == "" {
			continue
		}
		pin := "no baseline entry pins its content"
		if e, ok := p.LookupProgram(run.Path); ok && len(e.SHA256) > 0 {
			pin = "its baseline entry pins its sha256"
		}
		notes = append(notes, fmt.Sprintf("program %s can be replaced by the agent (%s); %s", run.Path, who, pin))
	}
	return notes
}
