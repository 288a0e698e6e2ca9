//lint:file-ignore SA1019 older JSON profiles still spell a rule's one name "name" (moby keeps Syscall.Name for them)

package containerprofile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/moby/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/sysgate/sysgate/baseline"
)

// ErrBadProfile is matched (errors.Is) by every problem in a container
// seccomp profile read by ReadContainerProfile: the user's file to fix.
var ErrBadProfile = errors.New("invalid seccomp profile")

// ProfileError is one problem in a container seccomp profile. It prints
// as "file:line:col: message [profile]" (line and col when known).
type ProfileError struct {
	File      string
	Line, Col int
	Message   string
}

func (e *ProfileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	fmt.Fprintf(&b, ": %s [profile]", e.Message)
	return b.String()
}

// Is makes every ProfileError match ErrBadProfile.
func (e *ProfileError) Is(target error) bool { return target == ErrBadProfile }

// ContainerProfile is a seccomp profile in the format Docker, Podman,
// containerd and the OCI runtime spec load: the runtime spec's
// LinuxSeccomp as moby extends it (archMap, conditional rules with
// includes and excludes, comments). It is read to be compared with what an
// agent needs (Compare), never compiled.
type ContainerProfile struct {
	Path string
	Spec *seccomp.Seccomp
	// Lines are the 1-based lines where each of Spec.Syscalls starts;
	// DefaultLine is the line of "defaultAction".
	Lines       []int
	DefaultLine int
	// Warnings are what ReadContainerProfile ignored: an unknown field.
	Warnings []string
}

// ReadContainerProfile reads and checks a profile file (at most
// MaxInputSize bytes).
func ReadContainerProfile(path string) (*ContainerProfile, error) {
	data, err := baseline.ReadInput(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is the error's File
		}
		return nil, &ProfileError{File: path, Message: "read: " + err.Error()}
	}
	return parseContainerProfile(path, data)
}

// parseContainerProfile decodes a profile and checks what a runtime would
// refuse or misread: unknown architectures, actions and operators, an
// argument index above 5, both "name" and "names", both "architectures"
// and "archMap". An unknown field is a warning, as runtimes ignore it.
func parseContainerProfile(path string, data []byte) (*ContainerProfile, error) {
	cp := &ContainerProfile{Path: path, Spec: &seccomp.Seccomp{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(cp.Spec)
	if err != nil && strings.HasPrefix(err.Error(), "json: unknown field ") {
		cp.Warnings = append(cp.Warnings, fmt.Sprintf("%s: %s: ignored, as runtimes do", path, strings.TrimPrefix(err.Error(), "json: ")))
		cp.Spec = &seccomp.Seccomp{}
		err = json.Unmarshal(data, cp.Spec)
	}
	if err != nil {
		return nil, decodeError(path, data, err)
	}
	if dec.More() {
		line, col := position(data, skipSpace(data, int(dec.InputOffset())))
		return nil, &ProfileError{File: path, Line: line, Col: col, Message: "more than one JSON value"}
	}
	cp.Lines = ruleLines(data)
	cp.DefaultLine = lineOf(data, "defaultAction")
	if err := cp.check(data); err != nil {
		return nil, err
	}
	return cp, nil
}

func decodeError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, int(syn.Offset)-1) // Offset is past the bad byte
		return &ProfileError{File: path, Line: line, Col: col, Message: "JSON: " + syn.Error()}
	case errors.As(err, &typ):
		line, col := position(data, int(typ.Offset)-1)
		return &ProfileError{File: path, Line: line, Col: col, Message: fmt.Sprintf("JSON: %s: a %s, want %s", typ.Field, typ.Value, typ.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		line, col := position(data, len(data))
		return &ProfileError{File: path, Line: line, Col: col, Message: "JSON: unexpected end of file"}
	}
	return &ProfileError{File: path, Message: "JSON: " + err.Error()}
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, offset - bytes.LastIndexByte(before, '\n')
}

// ruleLines returns the line where each element of the top-level
// "syscalls" array starts; nil when there is none.
func ruleLines(data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if k, _ := key.(string); !strings.EqualFold(k, "syscalls") {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil
		}
		var lines []int
		for dec.More() {
			// the offset is where the previous token ended: skip the
			// separator to the element's first byte
			line, _ := position(data, skipSpace(data, int(dec.InputOffset())))
			lines = append(lines, line)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
		}
		return lines
	}
	return nil
}

// skipSpace skips JSON white space and commas from offset.
func skipSpace(data []byte, offset int) int {
	for offset < len(data) && strings.IndexByte(" \t\r\n,", data[offset]) >= 0 {
		offset++
	}
	return offset
}

// lineOf is the line of the first occurrence of the JSON string s, 0 if
// none: where a bad value outside the rules is written.
func lineOf(data []byte, s string) int {
	quoted, _ := json.Marshal(s)
	i := bytes.Index(data, quoted)
	if i < 0 {
		return 0
	}
	line, _ := position(data, i)
	return line
}

// RuleLine is the line of rule i (0-based index in Spec.Syscalls), 0 if
// unknown.
func (cp *ContainerProfile) RuleLine(i int) int {
	if i >= 0 && i < len(cp.Lines) {
		return cp.Lines[i]
	}
	return 0
}

var (
	knownActions = []specs.LinuxSeccompAction{
		specs.ActKill, specs.ActKillProcess, specs.ActKillThread, specs.ActTrap, specs.ActErrno,
		specs.ActTrace, specs.ActAllow, specs.ActLog, specs.ActNotify,
	}
	knownOperators = []specs.LinuxSeccompOperator{
		specs.OpNotEqual, specs.OpLessThan, specs.OpLessEqual, specs.OpEqualTo,
		specs.OpGreaterEqual, specs.OpGreaterThan, specs.OpMaskedEqual,
	}
	// knownSpecArches are the runtime spec's architecture names.
	knownSpecArches = []specs.Arch{
		specs.ArchX86, specs.ArchX86_64, specs.ArchX32, specs.ArchARM, specs.ArchAARCH64,
		specs.ArchMIPS, specs.ArchMIPS64, specs.ArchMIPS64N32, specs.ArchMIPSEL, specs.ArchMIPSEL64,
		specs.ArchMIPSEL64N32, specs.ArchPPC, specs.ArchPPC64, specs.ArchPPC64LE, specs.ArchS390,
		specs.ArchS390X, specs.ArchPARISC, specs.ArchPARISC64, specs.ArchRISCV64, specs.ArchLOONGARCH64,
		specs.ArchM68K, specs.ArchSH, specs.ArchSHEB,
	}
	// nativeArches are the names moby matches includes/excludes "arches"
	// against: libseccomp's native arch names (moby's nativeToSeccomp,
	// plus "x32", which Docker's default profile names).
	nativeArches = map[string]specs.Arch{
		"x86": specs.ArchX86, "amd64": specs.ArchX86_64, "x32": specs.ArchX32, "arm": specs.ArchARM,
		"arm64": specs.ArchAARCH64, "loongarch64": specs.ArchLOONGARCH64, "mips64": specs.ArchMIPS64,
		"mips64n32": specs.ArchMIPS64N32, "mipsel64": specs.ArchMIPSEL64, "mips3l64n32": specs.ArchMIPSEL64N32,
		"mipsel64n32": specs.ArchMIPSEL64N32, "mips": specs.ArchMIPS, "mipsel": specs.ArchMIPSEL,
		"ppc": specs.ArchPPC, "ppc64": specs.ArchPPC64, "ppc64le": specs.ArchPPC64LE,
		"riscv64": specs.ArchRISCV64, "s390": specs.ArchS390, "s390x": specs.ArchS390X,
	}
)

func (cp *ContainerProfile) bad(line int, format string, args ...any) error {
	return &ProfileError{File: cp.Path, Line: line, Message: fmt.Sprintf(format, args...)}
}

func archList[T ~string](list []T) string {
	names := make([]string, len(list))
	for i, a := range list {
		names[i] = string(a)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (cp *ContainerProfile) check(data []byte) error {
	s := cp.Spec
	if s.DefaultAction == "" {
		return cp.bad(0, `no "defaultAction": a profile says what happens to the syscalls its rules do not name (e.g. "SCMP_ACT_ERRNO")`)
	}
	if !slices.Contains(knownActions, s.DefaultAction) {
		return cp.bad(lineOf(data, string(s.DefaultAction)), "defaultAction: unknown action %q (known: %s)", s.DefaultAction, archList(knownActions))
	}
	if len(s.Architectures) > 0 && len(s.ArchMap) > 0 {
		return cp.bad(0, `both "architectures" and "archMap": give one (Docker refuses such a profile)`)
	}
	checkArch := func(where string, a specs.Arch) error {
		if !slices.Contains(knownSpecArches, a) {
			return cp.bad(lineOf(data, string(a)), "%s: unknown architecture %q (known: %s)", where, a, archList(knownSpecArches))
		}
		return nil
	}
	for i, a := range s.Architectures {
		if err := checkArch(fmt.Sprintf("architectures[%d]", i), a); err != nil {
			return err
		}
	}
	for i, m := range s.ArchMap {
		if err := checkArch(fmt.Sprintf("archMap[%d].architecture", i), m.Arch); err != nil {
			return err
		}
		for j, sub := range m.SubArches {
			if err := checkArch(fmt.Sprintf("archMap[%d].subArchitectures[%d]", i, j), sub); err != nil {
				return err
			}
		}
	}
	for i, r := range s.Syscalls {
		line := cp.RuleLine(i)
		where := fmt.Sprintf("syscalls[%d]", i)
		if r == nil {
			return cp.bad(line, "%s: null, want a rule", where)
		}
		if r.Name != "" && len(r.Names) > 0 {
			return cp.bad(line, `%s: both "name" and "names": give "names"`, where)
		}
		if len(r.Names) == 0 && r.Name == "" {
			return cp.bad(line, `%s: no "names"`, where)
		}
		if !slices.Contains(knownActions, r.Action) {
			return cp.bad(line, "%s.action: unknown action %q (known: %s)", where, r.Action, archList(knownActions))
		}
		for j, a := range r.Args {
			if a.Index > 5 {
				return cp.bad(line, "%s.args[%d].index: %d, a syscall has arguments 0 to 5", where, j, a.Index)
			}
			if !slices.Contains(knownOperators, a.Op) {
				return cp.bad(line, "%s.args[%d].op: unknown operator %q (known: %s)", where, j, a.Op, archList(knownOperators))
			}
		}
		for _, f := range []struct {
			name string
			f    *seccomp.Filter
		}{{"includes", r.Includes}, {"excludes", r.Excludes}} {
			if f.f == nil {
				continue
			}
			for j, a := range f.f.Arches {
				if _, ok := nativeArches[a]; !ok {
					names := make([]string, 0, len(nativeArches))
					for n := range nativeArches {
						names = append(names, n)
					}
					return cp.bad(line, "%s.%s.arches[%d]: unknown architecture %q (these are libseccomp's native names: %s)", where, f.name, j, a, archList(names))
				}
			}
			for j, c := range f.f.Caps {
				if !strings.HasPrefix(c, "CAP_") {
					return cp.bad(line, "%s.%s.caps[%d]: %q: capabilities are named as CAP_SYS_ADMIN", where, f.name, j, c)
				}
			}
		}
	}
	return nil
}
