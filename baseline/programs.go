package baseline

import (
	"path"
	"sort"
	"strings"
)

// ProgramEntry is one line of a baseline's programs section: an
// executable the agent's processes may run. Path is absolute after
// loading (a relative line is relative to the file's directory) and may
// be a pattern (path.Match: "*" within one path element); a pattern needs
// a reason.
type ProgramEntry struct {
	Path        string // absolute; the pattern when Pattern is set
	Written     string // as the file has it
	Pattern     bool
	Reason      string
	Comment     string
	LineComment string
	File        string
	Line, Col   int
}

// Matches reports whether the entry allows the program at p (an absolute,
// symlink-resolved path).
func (e ProgramEntry) Matches(p string) bool {
	if !e.Pattern {
		return e.Path == p
	}
	ok, err := path.Match(e.Path, p)
	return err == nil && ok
}

// ProgramFinding is one program in a diff of a profile and an observation.
type ProgramFinding struct {
	Program string    `json:"program"`
	Count   uint64    `json:"count,omitempty"`
	Risk    RiskClass `json:"risk,omitempty"`
	Level   RiskLevel `json:"level,omitempty"`
	// File and Line: for a new program, where its line would go; for an
	// unused one, the entry.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// AddProgram counts n runs of the program at p.
func (o *Observation) AddProgram(p string, n uint64) {
	if o.Programs == nil {
		o.Programs = map[string]uint64{}
	}
	o.Programs[p] += n
}

// ProgramNames returns the observed programs, sorted.
func (o *Observation) ProgramNames() []string {
	if o == nil {
		return nil
	}
	names := make([]string, 0, len(o.Programs))
	for p := range o.Programs {
		names = append(names, p)
	}
	sort.Strings(names)
	return names
}

// GatesPrograms reports whether some file of the profile has a programs
// section: only then is a program outside it a violation.
func (p *Profile) GatesPrograms() bool {
	if p == nil {
		return false
	}
	for _, d := range p.Docs {
		if d.HasPrograms {
			return true
		}
	}
	return false
}

// LookupProgram returns the entry that allows the program at prog.
func (p *Profile) LookupProgram(prog string) (ProgramEntry, bool) {
	if p == nil {
		return ProgramEntry{}, false
	}
	for _, d := range p.Docs {
		for _, e := range d.Programs {
			if e.Matches(prog) {
				return e, true
			}
		}
	}
	return ProgramEntry{}, false
}

// AllowsProgram reports whether the profile allows the program at prog.
func (p *Profile) AllowsProgram(prog string) bool {
	_, ok := p.LookupProgram(prog)
	return ok
}

// ProgramInsert is where a new program line goes: the agent's own file
// and the line of its programs section ("" without a file).
func (p *Profile) ProgramInsert(prog string) (file string, line int) {
	d := p.agentDoc()
	if d == nil {
		return "", 0
	}
	return d.Path, d.lastLine
}

// ProgramRisk says why running prog deserves a reviewer's eye: shells,
// downloaders and compilers.
func ProgramRisk(prog string) (RiskClass, RiskLevel) {
	base := path.Base(prog)
	switch {
	case programShells[base]:
		return RiskShell, LevelHigh
	case programDownloaders[base]:
		return RiskDownloader, LevelHigh
	case programCompilers[base] || strings.HasPrefix(base, "gcc-") || strings.HasPrefix(base, "clang-"):
		return RiskCompiler, LevelMedium
	}
	return RiskNone, LevelNone
}

// Program risk classes.
const (
	RiskShell      RiskClass = "shell"      // runs any command it is given
	RiskDownloader RiskClass = "downloader" // fetches or sends data over the network
	RiskCompiler   RiskClass = "compiler"   // builds new code at run time
)

var programShells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "fish": true, "csh": true, "tcsh": true, "busybox": true}

var programDownloaders = map[string]bool{"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true, "nc.openbsd": true, "nc.traditional": true, "socat": true, "ssh": true, "scp": true, "sftp": true, "ftp": true, "tftp": true, "telnet": true, "aria2c": true, "rsync": true}

var programCompilers = map[string]bool{"cc": true, "gcc": true, "g++": true, "c++": true, "clang": true, "clang++": true, "tcc": true, "ld": true, "as": true, "cc1": true, "go": true, "rustc": true, "javac": true}
