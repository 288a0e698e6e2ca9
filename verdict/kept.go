package verdict

// MaxKept bounds how many entries of each kind a run keeps of what its
// agent can multiply at will: processes, programs, program violations,
// unseen execs, callers of a syscall, leaked processes. Without it, 20,000
// distinct programs run from memory grew one run to 111 MB and its JSON
// to 14 MB. Past the bound an entry is counted, not kept; the verdict
// counts it all the same (an exec outside the baselines that was not kept
// still makes the run a violation), and every report says what was not
// kept (ci.NotKeptNote).
const MaxKept = 1000

// NotKept counts what a run saw past MaxKept entries of a kind.
type NotKept struct {
	// ProcessCalls: calls by processes past the first MaxKept (they count
	// in the syscalls; the processes are not listed).
	ProcessCalls uint64 `json:"process_calls,omitempty"`
	// ProgramExecs: execs of programs past the first MaxKept distinct
	// ones (their programs are not listed, nor learned by a record run).
	ProgramExecs uint64 `json:"program_execs,omitempty"`
	// ProgramViolations: execs outside the baselines' programs, or that
	// ran another program than they named, not listed: each makes the
	// run a violation.
	ProgramViolations uint64 `json:"program_violations,omitempty"`
	// UnseenExecs: execs sysgate could not name, not listed (the run is
	// inconclusive for the listed ones already).
	UnseenExecs uint64 `json:"unseen_execs,omitempty"`
	// Leaks: processes killed at the run's end, not listed.
	Leaks uint64 `json:"leaks,omitempty"`
	// FileViolations: file accesses outside the baselines, not listed
	// (each makes the run a violation); LearnedFiles: accesses a record
	// run saw past MaxLearnedFiles and could not learn (the run is
	// inconclusive).
	FileViolations uint64 `json:"file_violations,omitempty"`
	LearnedFiles   uint64 `json:"learned_files,omitempty"`
	// NetworkViolations, LearnedNetwork: the same for destinations.
	NetworkViolations uint64 `json:"network_violations,omitempty"`
	LearnedNetwork    uint64 `json:"learned_network,omitempty"`
}

// Any reports whether anything was not kept.
func (n *NotKept) Any() bool { return n != nil && *n != NotKept{} }

// MaxLearnedFiles bounds the distinct (path, operation) pairs a record
// run keeps to learn from: far above what an agent's run touches (the
// Python suite's agent: a few hundred), far below what fills memory. A
// record run past it is inconclusive: a baseline learnt from part of the
// run would fail its own check.
const MaxLearnedFiles = 50000

// MaxLearnedNetwork bounds the distinct (call, destination, program)
// triples a record run keeps to learn from. A record run past it is
// inconclusive, as for files.
const MaxLearnedNetwork = 20000

// AddNotKept adds n to what r did not keep.
func (r *Result) AddNotKept(n NotKept) {
	if !n.Any() {
		return
	}
	if r.NotKept == nil {
		r.NotKept = &NotKept{}
	}
	r.NotKept.ProcessCalls += n.ProcessCalls
	r.NotKept.ProgramExecs += n.ProgramExecs
	r.NotKept.ProgramViolations += n.ProgramViolations
	r.NotKept.UnseenExecs += n.UnseenExecs
	r.NotKept.Leaks += n.Leaks
	r.NotKept.FileViolations += n.FileViolations
	r.NotKept.LearnedFiles += n.LearnedFiles
	r.NotKept.NetworkViolations += n.NetworkViolations
	r.NotKept.LearnedNetwork += n.LearnedNetwork
}
