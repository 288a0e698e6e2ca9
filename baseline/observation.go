package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sysgate/sysgate/baseline/argclass"
	"github.com/sysgate/sysgate/internal/scmp"
)

// Observation is the set of syscalls one or more runs made, with counts,
// per arch. Keys are syscall names, or the decimal number as a string when
// libseccomp cannot name it. Its JSON form is stable (sorted keys), so
// observation files diff well and shards merge in any order.
type Observation struct {
	// Agent names what was observed. Agents merged with MergeAllowMixed
	// are joined, sorted, with ",".
	Agent    string                          `json:"agent"`
	Runs     int                             `json:"runs"`
	Syscalls map[scmp.Arch]map[string]uint64 `json:"syscalls"`
	// Programs are the executables the runs' processes ran (absolute,
	// symlinks resolved), with how often.
	Programs map[string]uint64 `json:"programs,omitempty"`
	// ProgramSHA256 are the contents (sha256, lowercase hex, sorted) each
	// program ran with, for record to pin the entries it writes.
	ProgramSHA256 map[string][]string `json:"program_sha256,omitempty"`
	// HeldPrograms are the programs (of Programs) that ran from the run's
	// workspace: the repository's own, held to their content at each
	// run's start rather than pinned, so record writes their entries
	// without a sha256 (programs_pin.go).
	HeldPrograms []string `json:"held_programs,omitempty"`
	// RuntimePrograms are what the programs' placeholders stood for in
	// the runs ({python}: the interpreter the caller's command started,
	// read before the run): record writes the placeholder for them.
	RuntimePrograms RuntimePrograms `json:"runtime_programs,omitempty"`
	// Files are the paths the runs touched, per access ("read", "write",
	// "exec", "delete"), with how often; paths are absolute or in the
	// symbolic form FileContext.Abstract writes. nil: files were not
	// observed (an older sysgate, or --no-files).
	Files map[string]map[string]uint64 `json:"files,omitempty"`
	// Network are the destinations the runs reached, per call
	// ("connect", ...), destination (Destination.Key: names kept) and
	// program ("" when unknown), with how often. nil: the network was not
	// observed.
	Network map[string]map[string]map[string]uint64 `json:"network,omitempty"`
	// Environment is where the runs ran, per arch (Environment): merged
	// runs on different machines list every value.
	Environment map[scmp.Arch]Environment `json:"environment,omitempty"`
	// Incremental: a run of it allowed its baselines in the kernel
	// (incremental record), so only what they did not hold was seen. It
	// says nothing about which entries went unused: an update from it
	// keeps them. Merging keeps it set.
	Incremental bool `json:"incremental,omitempty"`
	// SeenIn are the runs that saw each key seen in only some of them
	// (seen.go): what record reports as rare. Merging fills it.
	SeenIn SeenIn `json:"seen_in,omitempty"`
}

// AddEnvironment merges env into arch's fingerprint.
func (o *Observation) AddEnvironment(arch scmp.Arch, env Environment) {
	if env.IsZero() {
		return
	}
	if o.Environment == nil {
		o.Environment = map[scmp.Arch]Environment{}
	}
	have := o.Environment[arch]
	have.Merge(env)
	o.Environment[arch] = have
}

// NewObservation returns an empty observation of agent with no runs.
func NewObservation(agent string) *Observation {
	return &Observation{Agent: agent, Syscalls: map[scmp.Arch]map[string]uint64{}}
}

// Add counts n calls of name on arch.
func (o *Observation) Add(arch scmp.Arch, name string, n uint64) {
	if o.Syscalls == nil {
		o.Syscalls = map[scmp.Arch]map[string]uint64{}
	}
	m := o.Syscalls[arch]
	if m == nil {
		m = map[string]uint64{}
		o.Syscalls[arch] = m
	}
	m[name] += n
}

// Count returns how often name was seen on arch.
func (o *Observation) Count(arch scmp.Arch, name string) uint64 {
	if o == nil {
		return 0
	}
	return o.Syscalls[arch][name]
}

// Uses reports whether the observation made use of an entry for key on
// arch: a call of that key, or for an argument-blind key, a call of any
// of its syscall's classes.
func (o *Observation) Uses(arch scmp.Arch, key string) bool {
	if o.Count(arch, key) > 0 {
		return true
	}
	if _, class := argclass.SplitKey(key); class != "" || o == nil {
		return false
	}
	for have := range o.Syscalls[arch] {
		if argclass.SyscallOf(have) == key {
			return true
		}
	}
	return false
}

// Arches returns the observed architectures, sorted by name: those with
// syscalls and, for an incremental observation, every arch it ran on
// (its environment), new syscalls or not.
func (o *Observation) Arches() []scmp.Arch {
	arches := make([]scmp.Arch, 0, len(o.Syscalls))
	for a, m := range o.Syscalls {
		if len(m) > 0 {
			arches = append(arches, a)
		}
	}
	// An incremental record that found nothing new still ran there:
	// its environment says so.
	for a := range o.Environment {
		if len(o.Syscalls[a]) == 0 && o.Incremental {
			arches = append(arches, a)
		}
	}
	sort.Slice(arches, func(i, j int) bool { return arches[i].String() < arches[j].String() })
	return arches
}

// Names returns the syscalls observed on arch, sorted.
func (o *Observation) Names(arch scmp.Arch) []string {
	names := make([]string, 0, len(o.Syscalls[arch]))
	for name := range o.Syscalls[arch] {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Merge adds other's runs and counts to o. Observations of different
// agents are refused (ErrAgentMismatch): a shard that ran the wrong agent
// must be noticed, not folded into a baseline. An empty agent matches any.
func (o *Observation) Merge(other *Observation) error { return o.merge(other, false) }

// MergeAllowMixed is Merge that joins different agents' observations; the
// agent becomes the sorted, comma-joined set of names.
func (o *Observation) MergeAllowMixed(other *Observation) error { return o.merge(other, true) }

func (o *Observation) merge(other *Observation, allowMixed bool) error {
	if other == nil {
		return nil
	}
	agent, err := mergeAgents(o.Agent, other.Agent, allowMixed)
	if err != nil {
		return err
	}
	o.Agent = agent
	o.SeenIn = o.mergeSeen(other)
	o.Runs += other.Runs
	o.Incremental = o.Incremental || other.Incremental
	for arch, m := range other.Syscalls {
		for name, n := range m {
			o.Add(arch, name, n)
		}
	}
	for prog, n := range other.Programs {
		o.AddProgram(prog, n)
	}
	for prog, sums := range other.ProgramSHA256 {
		for _, sum := range sums {
			o.AddProgramSHA256(prog, sum)
		}
	}
	for _, prog := range other.HeldPrograms {
		o.AddHeldProgram(prog)
	}
	for name, progs := range other.RuntimePrograms {
		for _, prog := range progs {
			o.RuntimePrograms.add(name, prog)
		}
	}
	for arch, env := range other.Environment {
		o.AddEnvironment(arch, env)
	}
	o.mergeFiles(other)
	o.mergeNetwork(other)
	return nil
}

func mergeAgents(a, b string, allowMixed bool) (string, error) {
	set := map[string]bool{}
	for _, list := range []string{a, b} {
		for _, name := range strings.Split(list, ",") {
			if name != "" {
				set[name] = true
			}
		}
	}
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) > 1 && !allowMixed {
		return "", fmt.Errorf("merge observations: %w: %q and %q", ErrAgentMismatch, a, b)
	}
	return strings.Join(names, ","), nil
}

// MarshalJSON writes "syscalls" as {} rather than null for an empty
// observation, so readers in other languages need no special case, and
// keeps an empty "files" or "network": a run that watched them and saw
// nothing says so (a record writes an empty section, which gates).
func (o *Observation) MarshalJSON() ([]byte, error) {
	type plain Observation
	c := struct {
		plain
		Files   *map[string]map[string]uint64            `json:"files,omitempty"`
		Network *map[string]map[string]map[string]uint64 `json:"network,omitempty"`
	}{plain: plain(*o)}
	if c.Syscalls == nil {
		c.Syscalls = map[scmp.Arch]map[string]uint64{}
	}
	if o.Files != nil {
		c.Files = &o.Files
	}
	if o.Network != nil {
		c.Network = &o.Network
	}
	return json.Marshal(c)
}

// ReadObservation reads an observation JSON file. Unknown fields and
// unknown arches are errors: a file from a newer sysgate should not lose
// data silently.
func ReadObservation(path string) (*Observation, error) {
	data, err := ReadInput(path)
	if err != nil {
		return nil, fmt.Errorf("read observation: %w", err)
	}
	o, err := DecodeObservation(data)
	if err != nil {
		return nil, fmt.Errorf("read observation %s: %w", path, err)
	}
	return o, nil
}

// DecodeObservation parses an observation's JSON form.
func DecodeObservation(data []byte) (*Observation, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	o := NewObservation("")
	if err := dec.Decode(o); err != nil {
		return nil, err
	}
	if o.Syscalls == nil {
		o.Syscalls = map[scmp.Arch]map[string]uint64{}
	}
	if o.Runs < 0 {
		return nil, fmt.Errorf("observation: negative runs %d", o.Runs)
	}
	if _, empty := o.Programs[""]; empty {
		return nil, fmt.Errorf("observation: a program without a path")
	}
	for prog, sums := range o.ProgramSHA256 {
		for _, sum := range sums {
			if !validSHA256(sum) {
				return nil, fmt.Errorf("observation: program %q: sha256 %q is not 64 lowercase hex digits", prog, sum)
			}
		}
	}
	for name, progs := range o.RuntimePrograms {
		for _, prog := range progs {
			if name == "" || !recordable(prog) {
				return nil, fmt.Errorf("observation: runtime %q: program %q is not an absolute, clean path", name, prog)
			}
		}
	}
	if err := o.checkFiles(); err != nil {
		return nil, err
	}
	if err := o.checkNetwork(); err != nil {
		return nil, err
	}
	if err := o.checkSeen(); err != nil {
		return nil, err
	}
	for arch, m := range o.Syscalls {
		for name := range m {
			if _, known := scmp.Number(arch, argclass.SyscallOf(name)); !known && !isDecimal(name) {
				return nil, fmt.Errorf("observation: %q is neither a %s syscall nor a syscall number", name, arch)
			}
			if key, err := argclass.CanonicalKey(arch, name); err != nil || key != name {
				return nil, fmt.Errorf("observation: %q: not an argument class as sysgate writes it (%v)", name, err)
			}
		}
	}
	return o, nil
}

func isDecimal(s string) bool {
	if s == "" || len(s) > 10 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// WriteObservation writes o as indented JSON through a temporary file and
// a rename, so a reader never sees half a file and an existing file is
// only replaced by a complete one.
func WriteObservation(path string, o *Observation) error {
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return fmt.Errorf("write observation %s: %w", path, err)
	}
	if err := WriteFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("write observation: %w", err)
	}
	return nil
}

// String lists the observation compactly, one arch per line, then the
// programs: "x86_64: close×1 openat×3 read×12", "programs: /usr/bin/git×2".
func (o *Observation) String() string {
	if o == nil {
		return "<no observation>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "observation of %q, %d runs", o.Agent, o.Runs)
	for _, arch := range o.Arches() {
		fmt.Fprintf(&b, "\n  %s:", arch)
		for _, name := range o.Names(arch) {
			fmt.Fprintf(&b, " %s×%d", name, o.Count(arch, name))
		}
	}
	if len(o.Programs) > 0 {
		b.WriteString("\n  programs:")
		for _, prog := range o.ProgramNames() {
			fmt.Fprintf(&b, " %s×%d", prog, o.Programs[prog])
		}
	}
	o.writeFiles(&b)
	o.writeNetwork(&b)
	return b.String()
}

// GomegaString keeps Gomega from dumping the nested maps when a matcher
// prints an observation.
func (o *Observation) GomegaString() string { return o.String() }
