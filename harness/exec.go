package harness

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/internal/kernel"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/verdict"
)

// execSeen is one exec as the run's listener read it, while the caller
// waited in the call: the path it names and its argv (from the caller's
// memory), the file that path reaches in the caller's view, and for a
// "#!" script the interpreter the kernel will run.
type execSeen struct {
	tgid      int
	requested string
	argv      []string
	parent    string // the caller's executable; "" for the agent's start
	// runs are the programs the exec runs if it succeeds: the file, its
	// interpreters, and the script an interpreter was given.
	runs []verdict.ProgramRun
	// opens are the files the kernel opens for execution if the exec
	// succeeds, as the audit backend's PATH records name them: the file,
	// each "#!" interpreter, and the ELF interpreter (ld.so) of the last.
	// Not the script an interpreter program was given: that it reads.
	opens []string
	// program is what the process runs once the exec succeeds (expect's
	// path): the audit backend names it as the exec's exe.
	program string
	// expect is the executable the kernel ends up running (the last
	// interpreter of a script); zero when the path reaches no file (the
	// exec fails, as in a shell's PATH search).
	expect kernel.FileID
	// expectSum is expect's content (sha256) as the exec was answered;
	// "" when unreadable.
	expectSum string
	// expectFresh: expectSum was read from the file (kernel.SumFresh),
	// and so is the check of what ran.
	expectFresh bool
	pre         kernel.FileID // the caller's executable
	comm        string        // the caller's name
	// readErr: the caller's memory could not be read, so the exec's
	// program is known only if /proc shows it afterwards.
	readErr error
}

// claimed reports whether the exec named a file sysgate could resolve.
func (e *execSeen) claimed() bool { return e.readErr == nil && e.expect != (kernel.FileID{}) }

// maxShebangDepth is the kernel's limit of nested interpreters
// (BINPRM_MAX_RECURSION).
const maxShebangDepth = 4

// pathMax is the longest path an exec takes (PATH_MAX).
const pathMax = 4096

// readExec reads an execve or execveat call of thread tid (of thread
// group tgid, whose executable is callerExe). launchDir is the absolute
// directory the launcher was told to start the agent in: the launcher
// shares sysgate's memory, which is not dumpable, so without root its
// /proc/<pid>/cwd is closed to sysgate, and its relative names (a
// command "./x", the script operand of "python3 agent.py") resolve from
// launchDir instead.
//
// pin says which programs to hash (see notifier.pin); nil: every one,
// none from the cache.
// opens: also name the files the exec opens for execution (e.opens, for
// the notify backend's file observer; the audit backend has them from
// its PATH records).
func readExec(tid, tgid int, arch scmp.Arch, auditArch uint32, name string, args [6]uint64, callerExe, comm, launchDir string, pin func(string) kernel.Sum, opens bool) *execSeen {
	e := &execSeen{tgid: tgid, parent: callerExe, comm: comm}
	if callerExe == launcherExe() {
		e.parent = ""
	}
	// resolveSum opens a name the caller gives as the kernel will,
	// hashing what want says.
	resolveSum := func(dirfd int, name string, emptyPath bool, want func(string) kernel.Sum) (kernel.ExecFile, error) {
		if e.parent == "" && launchDir != "" && dirfd == unix.AT_FDCWD && name != "" && !strings.HasPrefix(name, "/") {
			name = path.Join(launchDir, name)
		}
		lookup := kernel.ExecTarget(tid, tgid, dirfd, name, emptyPath)
		file, err := kernel.ResolveExecFileSum(lookup, programSums, want)
		if abs, ok := strings.CutPrefix(lookup, "/proc/"+strconv.Itoa(tid)+"/root"); ok && err != nil && !missing(err) {
			// The caller's /proc entries are closed to sysgate (the
			// launcher is not dumpable, and without root sysgate may
			// not look into it): an absolute path resolves in
			// sysgate's own root, the agent's unless it changed root.
			// Never a name through the caller's own /proc entry
			// (ExecTarget did not put it under root): from here that
			// is sysgate's.
			file, err = kernel.ResolveExecFileSum(abs, programSums, want)
		}
		return file, err
	}
	resolve := func(dirfd int, name string, emptyPath bool) (kernel.ExecFile, error) {
		return resolveSum(dirfd, name, emptyPath, pin)
	}
	// The listener has read the caller's exe path (callerExe): only the
	// file's identity is left to read.
	if id, err := kernel.ExeID(tgid); err == nil {
		e.pre = id
	}
	dirfd, nameAddr, argvAddr, emptyPath := unix.AT_FDCWD, args[0], args[1], false
	if name == "execveat" {
		dirfd, nameAddr, argvAddr = int(int32(args[0])), args[1], args[2]
		emptyPath = args[4]&unix.AT_EMPTY_PATH != 0
	}
	requested, _, err := kernel.ReadMemString(tid, nameAddr, pathMax)
	if err != nil {
		e.readErr = fmt.Errorf("read the path execve names: %w", err)
		return e
	}
	e.requested = requested
	raw, more := readArgv(tid, argvAddr, wordSize(arch, auditArch))
	e.argv = redactArgv(raw, more)
	file, err := resolve(dirfd, requested, emptyPath)
	if err != nil {
		if !missing(err) {
			e.readErr = fmt.Errorf("resolve %s: %w", requested, err)
		}
		return e // no such file: the exec fails (or another thread raced it)
	}
	role := verdict.RoleProgram
	interps := shebangChain(resolve, file)
	if len(interps) > 0 {
		role = verdict.RoleScript
	}
	e.add(file, role, requested)
	e.opens = append(e.opens, file.Path)
	e.expect, e.expectSum, e.expectFresh = file.ID, file.SHA256, file.Fresh
	last := file
	for _, in := range interps {
		e.add(in, verdict.RoleInterpreter, "")
		e.opens = append(e.opens, in.Path)
		e.expect, e.expectSum, e.expectFresh = in.ID, in.SHA256, in.Fresh
		last = in
	}
	e.program = last.Path
	if opens && last.Interp != "" {
		// The ELF loader opens it as the caller, from its root (or its
		// working directory, for a relative name). Not a program: never
		// hashed.
		if ld, err := resolveSum(unix.AT_FDCWD, last.Interp, false, func(string) kernel.Sum { return kernel.SumSkip }); err == nil {
			e.opens = append(e.opens, ld.Path)
		}
	}
	if len(interps) == 0 {
		if script := interpreterScript(file.Path, raw); script != "" {
			if sf, err := resolve(unix.AT_FDCWD, script, false); err == nil && sf.Regular {
				e.add(sf, verdict.RoleScript, "")
			}
		}
	}
	return e
}

func (e *execSeen) add(f kernel.ExecFile, role, requested string) {
	p := f.Path
	run := verdict.ProgramRun{Path: p, Role: role, Argv: e.argv, Parent: e.parent, PID: e.tgid, Count: 1}
	if f.SHA256 != "" {
		run.SHA256 = []string{f.SHA256}
	}
	if requested != "" && requested != p {
		run.Requested = requested
	}
	e.runs = append(e.runs, run)
}

// missing reports whether a path lookup failed for want of the file (as
// the exec itself will), rather than for want of access to the caller.
func missing(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENAMETOOLONG)
}

// readArgv reads up to ArgvShown arguments as they are (each up to
// PATH_MAX: a script operand is a path); more: there were others.
func readArgv(tid int, addr uint64, size int) (args []string, more bool) {
	if addr == 0 {
		return []string{}, false
	}
	ptrs, err := kernel.ReadMemWords(tid, addr, verdict.ArgvShown+1, size)
	if err != nil {
		return []string{}, false
	}
	more = len(ptrs) > verdict.ArgvShown
	args = make([]string, 0, len(ptrs))
	for _, p := range ptrs[:min(len(ptrs), verdict.ArgvShown)] {
		s, truncated, err := kernel.ReadMemString(tid, p, pathMax)
		if err != nil {
			s = "<unreadable>"
		} else if truncated {
			s += "..."
		}
		args = append(args, s)
	}
	return args, more
}

// wordSize is the caller's pointer size: 4 on a 32-bit ABI and x32.
func wordSize(arch scmp.Arch, auditArch uint32) int {
	if arch == scmp.X32 || auditArch&0x80000000 == 0 { // __AUDIT_ARCH_64BIT
		return 4
	}
	return 8
}

// shebangChain follows "#!" lines from file as the kernel does: each
// interpreter path is opened in the caller's view, up to
// maxShebangDepth. It returns the interpreters in order; empty for a
// file without "#!" (or one sysgate could not read).
func shebangChain(resolve func(dirfd int, name string, emptyPath bool) (kernel.ExecFile, error), file kernel.ExecFile) []kernel.ExecFile {
	var chain []kernel.ExecFile
	for range maxShebangDepth {
		interp := shebangInterpreter(file.Head)
		if interp == "" {
			break
		}
		next, err := resolve(unix.AT_FDCWD, interp, false)
		if err != nil {
			break // the exec fails with ENOENT
		}
		chain = append(chain, next)
		file = next
	}
	return chain
}

// shebangInterpreter is the interpreter path of a "#!" line, "" without.
func shebangInterpreter(head []byte) string {
	rest, ok := bytes.CutPrefix(head, []byte("#!"))
	if !ok {
		return ""
	}
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	fields := strings.Fields(string(rest))
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// interpreters maps an interpreter's name (without version digits) to
// its options that take a value (the next argument) and the options
// after which no script follows (code given inline, a module, stdin).
var interpreters = map[string]struct{ withValue, inline []string }{
	"python": {[]string{"-W", "-X", "-Q"}, []string{"-c", "-m", "-"}},
	"node":   {[]string{"-r", "--require", "--import", "--loader", "--experimental-loader", "--conditions", "-C", "--input-type"}, []string{"-e", "--eval", "-p", "--print", "-", "-i", "--interactive"}},
	"nodejs": {[]string{"-r", "--require", "--import", "--loader"}, []string{"-e", "--eval", "-p", "--print", "-"}},
	"perl":   {[]string{"-I", "-M", "-m"}, []string{"-e", "-E", "-"}},
	"ruby":   {[]string{"-I", "-r"}, []string{"-e", "-"}},
	"php":    {[]string{"-d", "-c"}, []string{"-r", "-a", "-"}},
	"bash":   {[]string{"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}, []string{"-c", "-s", "-i", "-"}},
	"sh":     {[]string{"-o", "+o"}, []string{"-c", "-s", "-i", "-"}},
	"dash":   {[]string{"-o", "+o"}, []string{"-c", "-s", "-i", "-"}},
	"zsh":    {[]string{"-o", "+o"}, []string{"-c", "-s", "-i", "-"}},
	"lua":    {[]string{"-l"}, []string{"-e", "-i", "-"}},
}

// interpreterScript is the script an interpreter program was given as
// its first operand ("python3 -I agent.py"), "" when it runs none.
func interpreterScript(program string, argv []string) string {
	name := strings.TrimRight(path.Base(program), "0123456789.")
	spec, ok := interpreters[name]
	if !ok || len(argv) < 2 {
		return ""
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == Redacted || a == "...":
			return ""
		case a == "--":
			if i+1 < len(argv) {
				return argv[i+1]
			}
			return ""
		case slices.Contains(spec.inline, a):
			return ""
		case slices.Contains(spec.withValue, a):
			i++
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			// a flag, or a value joined to it ("-Wignore", "--require=x")
		default:
			return a
		}
	}
	return ""
}
