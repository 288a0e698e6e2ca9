// Package baseline reads, writes and compares sysgate baselines:
// the committed, reviewed lists of syscalls an agent is expected to make.
//
// A baseline file is YAML (see Document.Format for the one canonical
// layout; JSON is read too, being YAML, and its syntax errors say JSON,
// but record and fmt write YAML): per-arch lists of syscall names, one per line, sorted, with
// optional reasons, "extends" to layer a runtime base under an agent's
// file, and named groups of syscalls expected but not necessarily seen.
// A "programs" section (programs.go) lists the executables the agent may
// run: absolute paths, paths relative to the file, or patterns with a
// reason; risky programs (shells, downloaders, compilers: risk.OfProgram)
// need a reason too. Without a programs section anywhere in a stack, any
// program may run (Profile.GatesPrograms).
// A "files" section (files*.go) lists, per access (read, write, exec,
// delete), the globs of the paths the agent may touch, with placeholders
// ({workspace}, {home}, {tmp}, {repo}, {runtime}) whose values the caller
// passes in a FileContext; a FileMatcher answers per run. An entry that
// names or covers a path of the sensitive-path table (sensitive.go: keys,
// credentials, start-up files, hooks) needs a reason. GeneraliseFiles
// turns a run's accesses into a short section. Without a files section
// anywhere in a stack, files are not gated (Profile.FilesGated).
// Load and LoadStack validate a stack of files into a Profile; every
// problem is an *Error printing "file:line: message [kind]" and matching
// ErrInvalid, several per file collected in an ErrorList. Syscall names are
// checked per arch through libseccomp (package internal/scmp).
//
// An Observation (syscalls seen, with counts, per arch, and the programs
// run) is compared with a Profile by Diff: new syscalls and programs are
// violations, unused entries are stale.
// WriteRecorded turns an observation into the file record mode writes.
//
// An entry may name an argument class, "socket(AF_UNIX)" or "openat(read)"
// (package baseline/argclass): the filter compares the syscall's register arguments, so
// the class is allowed and the syscall's other calls are not; a plain name
// allows any arguments. Classify names the class of a call from its
// registers, for the listener that learns and reports classes.
//
// Which syscalls, classes and programs are risky, at which level and why,
// is package baseline/risk's table (risk.Of, risk.OfProgram); this
// package decides the risks that need its own types: NetworkRisk for a
// network entry, the sensitive-path table (sensitive.go) for files.
//
// Package baseline/compile turns a Profile into a seccomp BPF program for
// one Mode (record, check, enforce) through libseccomp; it is kept apart so
// that what only reads and renders baselines does not link libseccomp
// through it. Nothing here needs privileges. Package baseline/export
// writes the same Profile as an OCI seccomp profile for Docker, Podman,
// containerd and Kubernetes (ExportOCI), or as a Security Profiles
// Operator SeccompProfile (ExportSPO). Package baseline/containerprofile
// reads a container seccomp profile (ReadContainerProfile) and says what
// it denies of an agent's needs (Compare).
//
// Every recorded file and observation carries an Environment per arch
// (environment.go): check compares it with the run's (CompareEnvironments)
// to say whether new syscalls are environment drift. An extends entry may
// pick a layer by environment ("{os}/python-{python}.yaml", layers.go):
// LoadStackFor resolves it with a Selector, and a layer nobody recorded is
// listed by Profile.Unrecorded instead of failing the load.
//
// Errors: ErrInvalid (the user's file or flags are wrong: conclusive),
// ErrAgentMismatch (observations of different agents); compile.ErrCompile
// (libseccomp refused; an environment problem).
package baseline
