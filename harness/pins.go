package harness

import (
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/kernel"
)

// programSums hashes the programs execs name, shared by every run of the
// process: a program is read once until it changes (kernel.FileKey).
// 4096 keys hold any agent's programs; a run of more clears it.
var programSums = kernel.NewContentCache(4096)

// pinMismatches checks each program of an exec against the content its
// baseline entry pins: what is wrong, one line per program, with the run
// it concerns; none when every program is one the baselines recorded
// (or pin nothing).
func pinMismatches(p *baseline.Profile, e *execSeen) (runs []ProgramRun, why []string) {
	for _, r := range e.runs {
		entry, ok := p.LookupProgram(r.Path)
		if !ok {
			continue
		}
		sum := ""
		if len(r.SHA256) > 0 {
			sum = r.SHA256[0]
		}
		if msg := entry.CheckContent(r.Path, sum); msg != "" {
			runs, why = append(runs, r), append(why, "content: "+msg)
		}
	}
	return runs, why
}
