package baseline

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrInvalid is matched (errors.Is) by every problem found in a baseline
// file: a malformed file is always the user's to fix, never an environment
// problem.
var ErrInvalid = errors.New("invalid baseline")

// ErrAgentMismatch is returned when observations of different agents would
// be merged without the caller allowing it.
var ErrAgentMismatch = errors.New("observations of different agents")

// Kinds of Error, printed in brackets after the message so a reader (or a
// grep) can tell them apart.
const (
	KindSyntax          = "syntax"           // YAML does not parse
	KindSchema          = "schema"           // unknown key, wrong type, missing version
	KindArch            = "arch"             // unknown architecture
	KindSyscall         = "syscall"          // unknown syscall name on that arch
	KindDuplicate       = "duplicate"        // same syscall or program twice in one file or in an extends stack
	KindExtends         = "extends"          // missing file or cycle in extends
	KindEmpty           = "empty"            // no syscalls, no programs, no extends, no groups
	KindRisk            = "risk"             // risky syscall or program without a reason
	KindUnreviewed      = "unreviewed"       // warning: placeholder reason written by record
	KindFormat          = "format"           // warning: content fmt would not keep (comments)
	KindChannel         = "channel"          // a channel the filter cannot see: refused unless unmonitored
	KindClass           = "class"            // an argument class the syscall does not have
	KindArgBlind        = "arg-blind"        // warning: a classed syscall allowed with any arguments
	KindProgram         = "program"          // a malformed program pattern, or a pattern without a reason
	KindProgramBlind    = "program-blind"    // warning: no file of the stack has a programs section, so any program runs
	KindProgramWritable = "program-writable" // warning: a user other than root can replace a listed program (advisory when its sha256 pins it)
	KindUnpinned        = "unpinned"         // warning (not failing --strict): program entries without a sha256
	KindFiles           = "files"            // a malformed files glob or placeholder
	KindSensitive       = "sensitive"        // a files entry naming or covering a sensitive path without a reason
	KindFileBlind       = "file-blind"       // warning: no file of the stack has a files section, so files are not gated
	KindNetwork         = "network"          // a malformed network destination, or a glob without a reason
	KindNetBlind        = "net-blind"        // warning: no file of the stack has a network section, so destinations are not gated
)

// Error is one finding in a baseline file. It prints as
// "file:line: message [kind]" so editors and CI annotations can point at it.
type Error struct {
	File    string
	Line    int // 1-based; 0 when the problem concerns the whole file
	Col     int // 1-based; 0 when unknown
	Message string
	Kind    string
	Warning bool // a warning does not make the file invalid
	// Advisory: a warning that validate --strict does not fail on either
	// (something for the reader that the file itself already handles).
	Advisory bool
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(e.Message)
	if e.Kind != "" {
		fmt.Fprintf(&b, " [%s]", e.Kind)
	}
	return b.String()
}

// Is makes every Error match ErrInvalid, warnings included, so a caller
// that treats warnings as errors (validate --strict) needs no special case.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// ErrorList is several Errors, sorted by file and line. Load returns one
// when a file has more than one problem, so a user fixes them in one pass.
type ErrorList []*Error

func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Is makes a list match ErrInvalid.
func (l ErrorList) Is(target error) bool { return target == ErrInvalid }

// Unwrap exposes the single errors to errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

func (l ErrorList) sorted() ErrorList {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].File != l[j].File {
			return l[i].File < l[j].File
		}
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Col < l[j].Col
	})
	return l
}

// Errors returns the single findings inside err: the list of an ErrorList,
// the Error itself, or nil when err carries none.
func Errors(err error) []*Error {
	var list ErrorList
	if errors.As(err, &list) {
		return list
	}
	var one *Error
	if errors.As(err, &one) {
		return []*Error{one}
	}
	return nil
}
