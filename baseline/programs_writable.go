package baseline

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// ProgramWritable says who besides root can replace the program at
// prog: "" when nobody. A program the agent's uid can write is whatever
// the agent writes there, so its entry needs its content pinned. It
// reads the file's and its directory's owner and mode (a non-root owner
// with write permission, or group or other write, except in a sticky
// directory), and asks the kernel whether this process may write them
// when it is not root: the agent runs as this uid unless told otherwise.
func ProgramWritable(prog string) string {
	for _, target := range []struct{ path, what string }{{prog, "the file"}, {filepath.Dir(prog), "its directory"}} {
		var st unix.Stat_t
		if err := unix.Stat(target.path, &st); err != nil {
			continue
		}
		mode := st.Mode
		sticky := target.what == "its directory" && mode&unix.S_ISVTX != 0
		switch {
		case st.Uid != 0 && mode&0o200 != 0:
			return fmt.Sprintf("%s is writable by its owner, uid %d", target.what, st.Uid)
		case !sticky && mode&0o022 != 0:
			return fmt.Sprintf("%s is writable by group %d or others (mode %o)", target.what, st.Gid, mode&0o7777)
		case os.Geteuid() != 0 && unix.Access(target.path, unix.W_OK) == nil:
			return fmt.Sprintf("%s is writable by uid %d, which runs sysgate and the agent", target.what, os.Geteuid())
		}
	}
	return ""
}

// ProgramPinWarnings are validate's warnings about the programs
// sections: an exact entry whose program a user other than root can
// replace (KindProgramWritable), and per file the entries without a
// sha256 (KindUnpinned: record adds them), which match by path alone.
// A placeholder ({python}) pins nothing and is not counted.
func (p *Profile) ProgramPinWarnings() []*Error {
	if p == nil {
		return nil
	}
	var out []*Error
	for _, d := range p.Docs {
		unpinned, first := 0, 0
		for _, e := range d.Programs {
			if e.Runtime != "" {
				continue // stands for an interpreter per run: nothing to pin
			}
			repo := InRepository(e.File, e.Path)
			if !e.Pattern {
				if who := ProgramWritable(e.Path); who != "" && repo && len(e.SHA256) == 0 {
					// The repository's own program: each run holds it to
					// its content at the run's start (programs_pin.go).
					out = append(out, &Error{File: e.File, Line: e.Line, Col: e.Col, Kind: KindProgramWritable, Warning: true, Advisory: true,
						Message: fmt.Sprintf("program %s can be replaced by the agent: %s; a program of the repository, each run holds it to its content at the run's start", e.describe(), who)})
				} else if who != "" {
					// Pinned, a replacement is a violation at its exec:
					// the agent's own script is the common case, and
					// --strict must not fail on it.
					pin, pinned := "its sha256 pins the content", len(e.SHA256) > 0
					if !pinned {
						pin = "and nothing pins its content: record again to add its sha256"
					}
					out = append(out, &Error{File: e.File, Line: e.Line, Col: e.Col, Kind: KindProgramWritable, Warning: true, Advisory: pinned,
						Message: fmt.Sprintf("program %s can be replaced by the agent: %s; %s", e.describe(), who, pin)})
				}
			}
			if len(e.SHA256) == 0 && !repo {
				if unpinned == 0 {
					first = e.Line
				}
				unpinned++
			}
		}
		if unpinned > 0 {
			out = append(out, &Error{File: d.Path, Line: first, Kind: KindUnpinned, Warning: true, Advisory: true,
				Message: fmt.Sprintf("%d program entries have no sha256 and match by path alone (the first here); record again to pin them", unpinned)})
		}
	}
	return out
}
