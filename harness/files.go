package harness

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// fileAccess is one operation on one file, as an observer (the audit
// rules, or the notify backend's proxy) saw the kernel do it.
type fileAccess struct {
	Path    string // absolute, symlinks resolved as the kernel resolved them
	Op      baseline.FileOp
	Syscall string
	PID     int
	Exe     string
	// Unverified: the observer could not tie the path to the file the
	// kernel used (Path is the caller's name for it); see Result's
	// Inconclusive.
	Unverified bool
	// Denied: the kernel refused the access (enforce's Landlock domain);
	// Path is the name the caller gave.
	Denied bool
}

type fileKey struct {
	path string
	op   baseline.FileOp
}

// fileBook collects a run's file accesses from its observer's goroutine.
// A check or enforce run keeps only those outside the baselines (the
// rest are counted); a record run keeps all, to learn from.
type fileBook struct {
	mu sync.Mutex
	// outside reports whether the baselines do not allow op on path (nil:
	// nothing is gated, as in record mode).
	outside func(path string, op baseline.FileOp) bool
	learn   bool
	kept    map[fileKey]*verdict.FileTouch
	// allowed counts accesses the baselines allow (not kept in check).
	allowed uint64
	// notKept counts distinct accesses past the bound: violations past
	// MaxKept, or learnt pairs past verdict.MaxLearnedFiles.
	notKept    uint64
	unverified map[string]bool
	// matcher is the gated run's, built once for the observer and the
	// result.
	matcher *baseline.FileMatcher
	// listOnly: a check run of baselines without a files section, which
	// lists what the agent touched and gates none of it: a name that
	// could not be verified decides nothing there.
	listOnly bool
}

func newFileBook(learn bool, outside func(path string, op baseline.FileOp) bool) *fileBook {
	return &fileBook{learn: learn, outside: outside, kept: map[fileKey]*verdict.FileTouch{}, unverified: map[string]bool{}}
}

func (b *fileBook) add(a fileAccess) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if a.Unverified && !b.listOnly {
		// A name the observer could not tie to the file the kernel used
		// says nothing about that file: allowed or not, it decides
		// nothing, and the run cannot be clean.
		if len(b.unverified) < verdict.MaxKept {
			b.unverified[a.Path] = true
		} else {
			b.notKept++
		}
		return
	}
	// A refusal is the kernel's verdict that the path is outside.
	bad := a.Denied || (b.outside != nil && b.outside(a.Path, a.Op))
	if !bad && !b.learn {
		b.allowed++
		return
	}
	k := fileKey{a.Path, a.Op}
	if t, ok := b.kept[k]; ok {
		t.Count++
		return
	}
	limit := verdict.MaxKept
	if b.learn {
		limit = verdict.MaxLearnedFiles
	}
	if len(b.kept) >= limit {
		b.notKept++
		return
	}
	b.kept[k] = &verdict.FileTouch{Path: a.Path, Op: a.Op, Syscall: a.Syscall, PID: a.PID, Exe: a.Exe, Count: 1, Denied: a.Denied}
}

// touches are the kept accesses, sorted by path and operation.
func (b *fileBook) touches() []verdict.FileTouch {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]verdict.FileTouch, 0, len(b.kept))
	for _, t := range b.kept {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Op < out[j].Op
	})
	return out
}

// unverifiedPaths are the names the observer could not tie to a file,
// sorted.
func (b *fileBook) unverifiedPaths() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, 0, len(b.unverified))
	for p := range b.unverified {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// newFileBook is the run's book of file accesses: gated by the baselines'
// files section in check and enforce, learning everything in record.
func (p *runPlan) newFileBook() *fileBook {
	p.fileCtx = fileContext(p.agent, p.envBefore)
	if p.mode == baseline.ModeRecord {
		return newFileBook(true, nil)
	}
	if !p.profile.FilesGated() {
		b := newFileBook(true, nil)
		b.listOnly = true
		return b
	}
	m, ctx, profile := p.profile.FileMatcher(p.fileCtx), p.fileCtx, p.profile
	b := newFileBook(false, func(path string, op baseline.FileOp) bool {
		if op == baseline.FileExec && profile.GatesPrograms() && profile.AllowsProgram(path) {
			// An exec of a listed program: the programs gate has judged
			// it (by path, and content where pinned); the files section
			// need not list it again.
			return false
		}
		e, ok := m.Lookup(path, op)
		return !ok || !reaches(ctx, e, path, op)
	})
	b.matcher = m
	return b
}

// reaches reports whether entry e, which matches op on path, allows it.
// A sensitive path (baseline.SensitivePath) is allowed only by an entry
// that names it, or by a glob whose reason a person wrote: a glob record
// learnt ({workspace}/**, reason "unreviewed: ...") allows what the
// agent did in its workspace, not a write of .git/hooks/pre-commit or a
// read of .env, until someone reviews it and says why it should.
func reaches(ctx baseline.FileContext, e baseline.FileEntry, path string, op baseline.FileOp) bool {
	if e.Reason != "" && !strings.HasPrefix(e.Reason, "unreviewed") {
		return true
	}
	if !strings.ContainsAny(e.Pattern, "*?") {
		return true
	}
	_, sensitive := baseline.SensitivePath(ctx, path, op)
	return !sensitive
}

// addFiles fills the files part of a result from the run's book: what
// it touched into the observation (by placeholder), the accesses outside
// the baselines, the names that could not be verified.
func addFiles(r *verdict.Result, b *fileBook, p *runPlan) {
	r.FilesObserved = true
	ctx := p.fileCtx
	m := b.matcher // nil when the run learns rather than gates
	pids := map[string]bool{}
	for _, proc := range r.Processes {
		pids[strconv.Itoa(proc.PID)] = true
	}
	for _, t := range b.touches() {
		if e, ok := baseline.SensitivePath(ctx, t.Path, t.Op); ok {
			t.Sensitive, t.Level = e.Label, string(e.Level)
		}
		if !t.Denied {
			// A refused access did not happen: nothing to learn.
			r.Observed.AddFile(ctx.Abstract(ownProc(t.Path, pids)), t.Op, t.Count)
		}
		if m == nil {
			continue
		}
		v := verdict.FileViolation{FileTouch: t, Fix: baseline.FixEntry(ctx, ownProc(t.Path, pids), t.Op).Pattern}
		if e, ok := m.Lookup(t.Path, t.Op); ok {
			// The entry to give a reason is the one to edit, in whichever
			// file of the stack has it.
			v.Has = e.String() + ", which reaches a sensitive path only with a reviewed reason"
			v.File, v.Line = e.File, e.Line
		} else {
			if e, ok := m.Closest(t.Path, t.Op); ok {
				v.Has = e.String()
			}
			v.File, v.Line = p.profile.FileInsert(t.Op)
		}
		r.FileViolations = append(r.FileViolations, v)
	}
	if r.Observed.Files == nil {
		// Nothing kept: the observation still says it watched files.
		r.Observed.Files = map[string]map[string]uint64{}
	}
	r.UnverifiedFiles = b.unverifiedPaths()
	b.mu.Lock()
	notKept := b.notKept
	b.mu.Unlock()
	if b.learn {
		r.AddNotKept(verdict.NotKept{LearnedFiles: notKept})
	} else {
		r.AddNotKept(verdict.NotKept{FileViolations: notKept})
	}
}

// ownProc writes /proc/PID/... of one of the run's own processes as
// /proc/self/...: a record run's pids mean nothing to the next run.
func ownProc(path string, pids map[string]bool) string {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return path
	}
	pid, tail, _ := strings.Cut(rest, "/")
	if !pids[pid] {
		return path
	}
	if tail == "" {
		return "/proc/self"
	}
	return "/proc/self/" + tail
}
