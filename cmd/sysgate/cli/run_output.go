package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sysgate/sysgate/auditlog/record"
	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
)

// formats render a Result for check/enforce --format.
var formats = map[string]func(io.Writer, *harness.Result) error{
	"text":   func(w io.Writer, r *harness.Result) error { writeText(w, r); return nil },
	"json":   writeJSON,
	"github": writeGitHub,
}

func writeJSON(w io.Writer, r *harness.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeResultFile writes the Result JSON atomically, so a report step
// never reads half a file.
func writeResultFile(path string, r *harness.Result) error {
	var b bytes.Buffer
	if err := writeJSON(&b, r); err != nil {
		return err
	}
	return baseline.WriteFileAtomic(path, b.Bytes())
}

// writeText prints the verdict, a table of the syscalls outside the
// baseline, the leaked processes and how the agent ended.
func writeText(w io.Writer, r *harness.Result) {
	verdict := strings.ToUpper(string(r.Verdict))
	if r.Mode == baseline.ModeRecord && r.Conclusive() {
		verdict = "RECORDED" // beyond the extended bases is what record writes, not a failure
	}
	fmt.Fprintf(w, "sysgate %s %s: %s", r.Mode, r.Agent, verdict)
	if r.Inconclusive != "" {
		fmt.Fprintf(w, " (%s)", r.Inconclusive)
	}
	fmt.Fprintf(w, "\n  %d logged syscalls from %d processes in %v; agent %s\n",
		r.Events, len(r.Processes), r.Duration.Round(time.Millisecond), exitText(r))
	if h := r.ArchHint(); h != "" {
		fmt.Fprintf(w, "  %s\n", h)
	}
	if r.Mode == baseline.ModeRecord && r.Observed != nil {
		for _, arch := range r.Observed.Arches() {
			fmt.Fprintf(w, "  observed %s: %d distinct syscalls\n", arch, len(r.Observed.Names(arch)))
		}
	}
	// A record run's syscalls beyond its bases are what it writes: the
	// record summary lists them.
	if len(r.Violations) > 0 && r.Mode != baseline.ModeRecord {
		fmt.Fprintf(w, "\nOutside the baseline:\n")
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "  ARCH\tSYSCALL\tNR\tCOUNT\tRISK\tFIRST MADE BY\tADD AT")
		for _, v := range r.Violations {
			others := ""
			if k := len(v.Also) + v.More; k > 0 {
				others = fmt.Sprintf(" +%d other", k)
				if k > 1 {
					others += "s"
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s (%s, pid %d)%s\t%s\n",
				v.Arch, v.Syscall, v.Number, v.Count, dash(string(v.Risk)), v.Exe, v.Comm, v.PID, others, position(v.File, v.Line))
		}
		tw.Flush()
		header := false
		for _, v := range r.Violations {
			if len(v.Also) == 0 {
				continue
			}
			if !header {
				fmt.Fprintf(w, "\nAlso made by:\n")
				header = true
			}
			progs := make([]string, len(v.Also))
			for i, c := range v.Also {
				progs[i] = fmt.Sprintf("%s (%s, pid %d) x%d", c.Exe, c.Comm, c.PID, c.Count)
			}
			more := ""
			if v.More > 0 {
				more = fmt.Sprintf(" and %d more", v.More)
			}
			fmt.Fprintf(w, "  %s %s: %s%s\n", v.Arch, v.Syscall, strings.Join(progs, ", "), more)
		}
	}
	if r.UnknownABI > 0 {
		fmt.Fprintf(w, "  %d syscalls of an ABI sysgate cannot name\n", r.UnknownABI)
	}
	if len(r.Leaked) > 0 {
		fmt.Fprintf(w, "\nKilled by sysgate:\n")
		for _, l := range r.Leaked {
			fmt.Fprintf(w, "  %s (%s, pid %d) after %v: %s\n", l.Exe, l.Comm, l.PID, l.Lived.Round(time.Millisecond), l.Cause)
		}
	}
	if len(r.Violations) > 0 && r.Mode != baseline.ModeRecord {
		fmt.Fprintf(w, "\n%s\n", harness.UpdateHint)
	}
}

func exitText(r *harness.Result) string {
	switch {
	case r.TimedOut:
		return "timed out"
	case r.Signal != "":
		return "killed by " + r.Signal
	}
	return fmt.Sprintf("exited %d", r.ExitStatus)
}

func position(file string, line int) string {
	if file == "" {
		return "-"
	}
	return fmt.Sprintf("%s:%d", file, line)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeGitHub prints workflow commands: an error annotation per syscall
// outside the baseline, at the line it would be added.
func writeGitHub(w io.Writer, r *harness.Result) error {
	if !r.Conclusive() {
		fmt.Fprintf(w, "::error title=sysgate inconclusive::%s: %s\n", r.Agent, escapeData(r.Inconclusive))
	}
	for _, v := range r.Violations {
		var props []string
		if v.File != "" {
			props = append(props, "file="+escapeProperty(v.File), fmt.Sprintf("line=%d", v.Line))
		}
		props = append(props, "title="+escapeProperty("sysgate: new syscall "+v.Syscall))
		risk := ""
		if v.Risk.Risky() {
			risk = fmt.Sprintf(" (risky: %s)", v.Risk)
		}
		by := fmt.Sprintf("%s (%s)", v.Exe, v.Comm)
		for _, c := range v.Also {
			by += fmt.Sprintf(", %s (%s)", c.Exe, c.Comm)
		}
		if v.More > 0 {
			by += fmt.Sprintf(" and %d more", v.More)
		}
		fmt.Fprintf(w, "::error %s::%s %s%s made by %s; add it to the baseline with a reason or run make baseline-update\n",
			strings.Join(props, ","), v.Arch, v.Syscall, risk, escapeData(by))
	}
	return nil
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func writeRecorded(w io.Writer, path string, res *baseline.RecordResult) {
	fmt.Fprintf(w, "wrote %s: %d added, %d removed\n", path, len(res.Added), len(res.Removed))
	for _, f := range res.Added {
		risk := ""
		if f.Risk.Risky() {
			risk = fmt.Sprintf("  [risky: %s: give it a real reason]", f.Risk)
		}
		fmt.Fprintf(w, "  + %s %s%s\n", f.Arch, f.Syscall, risk)
	}
	for _, f := range res.Removed {
		fmt.Fprintf(w, "  - %s %s\n", f.Arch, f.Syscall)
	}
	for _, f := range res.Skipped {
		fmt.Fprintf(w, "  ! %s syscall %s has no name: it stays a violation\n", f.Arch, f.Syscall)
	}
}

// progress prints each syscall the first time the run makes it, while
// the agent runs; only on a terminal.
type progress struct {
	w    io.Writer
	mu   sync.Mutex
	seen map[string]bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err != nil {
		return nil
	}
	return &progress{w: w, seen: map[string]bool{}}
}

func (p *progress) event(ev *record.SeccompEvent) {
	key := fmt.Sprintf("%s %s", archName(ev.Arch), ev.Name)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen[key] {
		return
	}
	p.seen[key] = true
	fmt.Fprintf(p.w, "sysgate: + %-28s %s (pid %d)\n", key, ev.Exe, ev.PID)
}

func archName(a scmp.Arch) string {
	if a.Valid() {
		return a.String()
	}
	return "unknown-abi"
}
