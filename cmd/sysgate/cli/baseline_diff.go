package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/baseline/risk"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/internal/untrusted"
	"github.com/sysgate/sysgate/runenv"
	"github.com/sysgate/sysgate/update"
)

func init() {
	register("baseline diff", "show syscalls (per arch), programs, files and destinations added and removed between two baselines or observations", (*Command).runBaselineDiff)
}

// syscallSet is one side of a diff: a baseline's effective allow-list or
// an observation's syscalls with counts, and its programs.
type syscallSet struct {
	name   string
	counts map[scmp.Arch]map[string]uint64 // nil inner values for baselines
	// programs: a baseline's program entries (patterns among them) or an
	// observation's programs, counted in programCounts; hasPrograms: the
	// side says something about programs (a baseline with a programs
	// section, an observation that saw programs).
	programs      []baseline.ProgramEntry
	programCounts map[string]uint64
	hasPrograms   bool
	// files: a baseline's files entries (globs as written) or an
	// observation's paths (by placeholder); hasFiles: the side says
	// something about files.
	files    []fileChange
	hasFiles bool
	// network: a baseline's network entries or an observation's
	// destinations; hasNetwork: the side says something about them.
	network    []netChange
	hasNetwork bool
}

type setChange struct {
	arch    scmp.Arch
	syscall string
	added   bool
	count   uint64 // from the NEW side when it is an observation
	risk    risk.Class
	level   risk.Level
	// had: for an added argument class, the other classes of its
	// syscall the OLD side had.
	had []string
}

// diffExitCodes closes baseline diff's help: it exits as diff(1) does.
const diffExitCodes = `
Exit codes: 0 when the two sides list the same, 1 when they differ (as diff and git diff
--exit-code; with --base: when the working tree widens the base), 2 on bad flags or input,
3 with --base when it cannot tell which layers the run loads (a layer picked by {python},
{node}, {go} or {libc} needs the run's command: FILE... -- CMD [ARGS...]; a changed "#!"
line or pyenv version file picked another at the base) and found no widening.
`

func (c *Command) runBaselineDiff(args []string) int {
	fs := c.flagSet("baseline diff", "OLD NEW  (baseline files, YAML or JSON, or observation .json files)\n"+
		"  or: sysgate baseline diff --base REF [--dir DIR] FILE|DIR... [-- CMD [ARGS...]]  (CMD: the run's command, which picks its runtime layers)")
	format := fs.String("format", "text", "text or markdown; with --base also github (annotations on the added lines)")
	base := fs.String("base", "", "a git commit (a pull request's base): list what the working tree's baseline FILES (or directories) allow that the commit's did not, read with git, never checked out; exit 1 when they widen")
	level := fs.String("level", "warning", "with --base --format github: the annotations' level, error, warning or notice")
	var cmd runCommand
	cmd.register(fs)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(c.Stderr, diffExitCodes)
	}
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if *base != "" {
		if *format != "text" && *format != "markdown" && *format != "github" {
			fs.Usage()
			return ExitUsage
		}
		files, argv := splitCommand(fs.Args())
		cmd.argv = argv
		return c.runBaselineDiffBase(*base, *format, *level, cmd, files)
	}
	if cmd.dir+cmd.envFile+cmd.env+cmd.root != "" {
		return c.errorf(ExitUsage, "baseline diff: --dir, --env-file, --command-env and --root name the run for --base")
	}
	if fs.NArg() != 2 || (*format != "text" && *format != "markdown") {
		fs.Usage()
		return ExitUsage
	}
	var sides [2]*syscallSet
	for i, path := range fs.Args() {
		s, err := loadSyscallSet(path)
		if err != nil {
			c.printFindings(err)
			return ExitUsage
		}
		sides[i] = s
	}
	changes := diffSets(sides[0], sides[1])
	programs, showPrograms := diffPrograms(sides[0], sides[1])
	files, showFiles := diffFiles(sides[0], sides[1])
	network, showNetwork := diffNetwork(sides[0], sides[1])
	code := ExitOK
	if differ(changes, programs, files, network) {
		code = ExitViolation // as diff(1) and git diff --exit-code
	}
	if *format == "markdown" {
		writeDiffMarkdown(c.Stdout, sides[0].name, sides[1].name, changes)
		if showPrograms {
			writeProgramsMarkdown(c.Stdout, programs)
		}
		if showFiles {
			writeFilesMarkdown(c.Stdout, files)
		}
		if showNetwork {
			writeNetworkMarkdown(c.Stdout, network)
		}
		return code
	}
	writeDiffText(c.Stdout, changes)
	writeProgramsText(c.Stdout, programs)
	writeFilesText(c.Stdout, files)
	writeNetworkText(c.Stdout, network)
	added, removed := countChanges(changes)
	summary := fmt.Sprintf("%d new, %d removed", added, removed)
	if showPrograms {
		added, removed = countChanges(programs)
		summary += fmt.Sprintf("; programs: %d new, %d removed", added, removed)
	}
	if showFiles {
		added, removed = countChanges(files)
		summary += fmt.Sprintf("; files: %d new, %d removed", added, removed)
	}
	if showNetwork {
		added, removed = countChanges(network)
		summary += fmt.Sprintf("; network: %d new, %d removed", added, removed)
	}
	fmt.Fprintln(c.Stdout, summary)
	return code
}

// loadSyscallSet reads an observation (JSON) or a baseline, YAML or JSON,
// with everything it extends.
func loadSyscallSet(path string) (*syscallSet, error) {
	data, err := baseline.ReadInput(path)
	if err != nil {
		return nil, err
	}
	s := &syscallSet{name: path, counts: map[scmp.Arch]map[string]uint64{}}
	if isObservation(data) {
		o, err := baseline.DecodeObservation(data)
		if err != nil {
			return nil, fmt.Errorf("%s: observation: %w", path, err)
		}
		s.counts = o.Syscalls
		s.programs, s.programCounts = programsOf(o)
		s.hasPrograms = len(s.programs) > 0
		for _, f := range o.FileList() {
			s.files = append(s.files, fileChange{op: f.Op, path: f.Path})
		}
		s.hasFiles = o.ObservesFiles()
		s.network, s.hasNetwork = networkOfObservation(o), o.ObservesNetwork()
		return s, nil
	}
	p, err := baseline.LoadStackFor(runenv.HostSelector(os.Environ()), path)
	if err != nil {
		return nil, err
	}
	for _, arch := range p.Arches() {
		m := map[string]uint64{}
		for _, e := range p.Entries(arch) {
			if e.Builtin {
				continue // the scheduling group is sysgate's, in every file alike
			}
			m[e.Name] = 0
		}
		s.counts[arch] = m
	}
	s.programs, s.hasPrograms = p.Programs(), p.GatesPrograms()
	for _, e := range p.FileEntries() {
		s.files = append(s.files, fileChange{op: e.Op, path: e.Pattern})
	}
	s.hasFiles = p.FilesGated()
	s.network, s.hasNetwork = networkOfProfile(p), p.NetworkGated()
	return s, nil
}

func diffSets(old, cur *syscallSet) []setChange {
	var out []setChange
	for arch, m := range cur.counts {
		for name, n := range m {
			if _, had := old.counts[arch][name]; !had {
				out = append(out, setChange{arch: arch, syscall: name, added: true, count: n, risk: risk.Of(name),
					level: risk.LevelOf(name), had: otherClasses(old.counts[arch], name)})
			}
		}
	}
	for arch, m := range old.counts {
		for name := range m {
			if _, has := cur.counts[arch][name]; !has {
				out = append(out, setChange{arch: arch, syscall: name, risk: risk.Of(name), level: risk.LevelOf(name)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.arch != b.arch {
			return a.arch.String() < b.arch.String()
		}
		if a.added != b.added {
			return a.added
		}
		return a.syscall < b.syscall
	})
	return out
}

// otherClasses lists the argument classes in set of key's syscall, but
// key.
func otherClasses(set map[string]uint64, key string) []string {
	name, class := argclass.SplitKey(key)
	if class == "" {
		return nil
	}
	var out []string
	for k := range set {
		if n, c := argclass.SplitKey(k); n == name && c != "" && k != key {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func (ch setChange) riskTag() string {
	if !ch.risk.Risky() {
		return ""
	}
	return "risky: " + ch.risk.Label(ch.level) + ": " + risk.Reason(ch.syscall)
}

// classNote is "new class of openat; the baseline had openat(read)", or
// "".
func (ch setChange) classNote() string {
	if len(ch.had) == 0 {
		return ""
	}
	return update.NewClassNote(ch.syscall, ch.had)
}

func (ch setChange) isAdded() bool { return ch.added }

// countChanges counts the added and the removed syscalls or programs.
func countChanges[C interface{ isAdded() bool }](changes []C) (added, removed int) {
	for _, ch := range changes {
		if ch.isAdded() {
			added++
		} else {
			removed++
		}
	}
	return added, removed
}

// sign is how the text diff marks a line: "+" added, "-" removed.
func sign(added bool) string {
	if added {
		return "+"
	}
	return "-"
}

func writeDiffText(w io.Writer, changes []setChange) {
	var arch scmp.Arch
	for _, ch := range changes {
		if ch.arch != arch {
			arch = ch.arch
			fmt.Fprintf(w, "%s:\n", arch)
		}
		// An observation file is a run's output: what it names is the agent's.
		line := "  " + sign(ch.added) + " " + untrusted.Terminal(ch.syscall)
		switch {
		case ch.count == 1:
			line += " (1 call)"
		case ch.count > 1:
			line += fmt.Sprintf(" (%d calls)", ch.count)
		}
		if note := ch.classNote(); note != "" {
			line += " [" + untrusted.Terminal(note) + "]"
		}
		if tag := ch.riskTag(); tag != "" {
			line += " [" + tag + "]"
		}
		fmt.Fprintln(w, line)
	}
}

func writeDiffMarkdown(w io.Writer, oldName, newName string, changes []setChange) {
	added, removed := countChanges(changes)
	fmt.Fprintf(w, "### Syscall baseline: %d new, %d removed\n\n", added, removed)
	fmt.Fprintf(w, "%s → %s\n", untrusted.MarkdownCode(oldName), untrusted.MarkdownCode(newName))
	if len(changes) == 0 {
		fmt.Fprintln(w, "\nNo change.")
		return
	}
	fmt.Fprintln(w, "\n| arch | change | syscall | calls | risk |")
	fmt.Fprintln(w, "|---|---|---|---:|---|")
	for _, ch := range changes {
		change, calls := "removed", ""
		if ch.added {
			change = "**new**"
		}
		if ch.count > 0 {
			calls = fmt.Sprint(ch.count)
		}
		riskCell := ""
		if ch.risk.Risky() {
			riskCell = "⚠️ " + ch.risk.Label(ch.level) + ": " + risk.Reason(ch.syscall)
		}
		// A class may join flags with "|", which would end the cell; an
		// observation's names are a run's output.
		syscall := untrusted.MarkdownCellCode(ch.syscall)
		if note := ch.classNote(); note != "" {
			syscall += ": " + untrusted.Markdown(note)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", ch.arch, change, syscall, calls, riskCell)
	}
	var risky []string
	for _, ch := range changes {
		if ch.added && ch.risk.Risky() {
			risky = append(risky, untrusted.MarkdownCode(ch.syscall))
		}
	}
	if len(risky) > 0 {
		fmt.Fprintf(w, "\n> [!WARNING]\n> New risky syscalls need a reviewed reason in the baseline: %s.\n", strings.Join(risky, ", "))
	}
}

// isObservation tells an observation from a baseline written in JSON: both
// are JSON objects, and only a baseline has a version.
func isObservation(data []byte) bool {
	if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return true // reported as a broken observation
	}
	_, baseline := top["version"]
	return !baseline
}

// differ says whether the two sides differ in anything the diff lists:
// baseline diff then exits 1, as diff(1) does.
func differ(syscalls []setChange, programs []programChange, files []fileChange, network []netChange) bool {
	return len(syscalls)+len(programs)+len(files)+len(network) > 0
}
