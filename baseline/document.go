package baseline

import (
	"sort"

	"github.com/sysgate/sysgate/baseline/scheduling"
	"github.com/sysgate/sysgate/internal/scmp"
)

// FormatVersion is the only baseline file version this package reads and
// writes.
const FormatVersion = 1

// DefaultHeader is the comment Save writes at the top of a file that has
// none of its own.
const DefaultHeader = "# sysgate baseline: reviewed in pull requests. Regenerate with `sysgate record --merge`."

// UnreviewedReason is the placeholder reason record mode gives a risky
// syscall: the file is valid as is (check accepts it), and validate warns
// until a reviewer writes a real reason.
const UnreviewedReason = "unreviewed: seen in record mode"

// Document is one baseline file as written: the layer a person reviews.
// Profile is the validated union of a stack of Documents.
type Document struct {
	Path    string
	Header  string // leading comment block, "#" lines joined by "\n"; "" = DefaultHeader
	Version int
	Agent   string
	// Scheduling is the file's "scheduling:" key: Exact makes the stack
	// treat the built-in scheduling group (package baseline/scheduling)
	// as syscalls like any other; zero when the file does not say.
	Scheduling scheduling.Mode
	// Environment is where the file was recorded, per arch (sorted by
	// arch name); files without one keep working, and drift is then not
	// explained.
	Environment []EnvSection
	Extends     []Ref
	Syscalls    []Section // sorted by arch name
	// Unmonitored are the channels the filter cannot see (Channels) that
	// this file lets through, each with a reason; sorted by arch name.
	Unmonitored []Section
	Groups      []Group // sorted by name
	// Programs are the executables the agent may run (sorted as written);
	// HasPrograms: the file has a programs section, even an empty one.
	Programs    []ProgramEntry
	HasPrograms bool
	// Files are the paths the agent may touch, per access (files.go);
	// HasFiles: the file has a files section, even "files: {}".
	Files    []FileEntry
	HasFiles bool
	// Network are the destinations the agent may reach, per call
	// (network.go); HasNetwork: the file has a network section.
	Network    []NetworkEntry
	HasNetwork bool

	// Warnings found while parsing: unreviewed reasons, comments Format
	// does not keep.
	Warnings []*Error

	// Positions for Diff's insertion hints: the lines of the "syscalls:",
	// "unmonitored:", "groups:" and "programs:" keys (0 when absent), the
	// last line of the programs list and the last line of the file.
	syscallsLine, unmonitoredLine, groupsLine, programsLine int
	schedulingLine                                          int
	programsEnd, lastLine                                   int
	// filesLine and fileOpLines: the lines of "files:" and of each
	// access's key under it; filesFlow and fileOpFlow: written in flow
	// style ("files: {}", "read: []"), where a new line cannot go below.
	filesLine   int
	filesFlow   bool
	fileOpLines map[FileOp]int
	fileOpFlow  map[FileOp]bool
}

// Ref is one extends entry.
type Ref struct {
	Path string // as written, relative to the including file's directory
	Line int
}

// Section is the list of one architecture.
type Section struct {
	Arch    scmp.Arch
	Line    int
	Entries []DocEntry // sorted by name
}

// DocEntry is one syscall line.
type DocEntry struct {
	Name        string
	Reason      string
	Comment     string // "#" lines above the entry, joined by "\n"
	LineComment string // "# ..." after the entry
	Line, Col   int
}

// Group is a named set of syscalls expected but not necessarily seen
// (error paths, say), with the reason they are there.
type Group struct {
	Name     string
	Reason   string
	Comment  string
	Line     int
	Syscalls []Section
}

// section returns the document's section for arch, creating it (sorted
// in place) when create is set.
func sectionFor(sections *[]Section, arch scmp.Arch, create bool) *Section {
	for i := range *sections {
		if (*sections)[i].Arch == arch {
			return &(*sections)[i]
		}
	}
	if !create {
		return nil
	}
	*sections = append(*sections, Section{Arch: arch})
	sortSections(*sections)
	return sectionFor(sections, arch, false)
}

func sortSections(sections []Section) {
	sort.SliceStable(sections, func(i, j int) bool {
		return sections[i].Arch.String() < sections[j].Arch.String()
	})
	for i := range sections {
		sortEntries(sections[i].Entries)
	}
}

func sortEntries(entries []DocEntry) {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
}

// normalize sorts everything the writer emits in a fixed order.
func (d *Document) normalize() {
	sortSections(d.Syscalls)
	sortSections(d.Unmonitored)
	sort.SliceStable(d.Groups, func(i, j int) bool { return d.Groups[i].Name < d.Groups[j].Name })
	for i := range d.Groups {
		sortSections(d.Groups[i].Syscalls)
	}
	sortPrograms(d.Programs)
	sortFileEntries(d.Files)
	sortNetworkEntries(d.Network)
}
