//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sysgate/sysgate/auditlog/preflight"
	"github.com/sysgate/sysgate/ci"
	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/verdict"
)

func init() {
	register("doctor", "check that this machine can observe the syscalls of a run: which backends (audit, notify) can run here, and why not", (*Command).runDoctor)
}

// runPreflight is preflight.Run, and auditUnavailable and
// notifyUnavailable the harness's reasons; replaceable in tests.
var (
	runPreflight      = preflight.Run
	auditUnavailable  = harness.AuditUnavailable
	notifyUnavailable = harness.NotifyUnavailable
	namesUnavailable  = harness.NamesUnavailable
)

// namesCheck says whether a run here records the names its agent looks
// up (the network gate's names): a warning, not a failure, since every
// destination is still seen, as an address.
func namesCheck(why string) preflight.Check {
	c := preflight.Check{Name: "names (network)", OK: true,
		Detail: "a run's recording DNS forwarder can listen on port 53 of a loopback address"}
	if why != "" {
		c.Warn = true
		c.Detail = "runs here record no names, so destinations read as addresses and entries by name do not match them: " + why
	}
	return c
}

// doctorExitCodes closes doctor's help: what its exit code promises.
const doctorExitCodes = `
Exit codes: 0 when the backend --backend names can run here (auto: the one record, check and
enforce pick with --backend auto, so a user without root gets 0 where notify works), 3 when it
cannot (the FAIL lines and the backends section say why and how to fix it), 2 on bad flags.
A failed check only the audit backend needs reads "skip ... audit only" when the backend the
exit code is about is notify.
`

func (c *Command) runDoctor(args []string) int {
	fs := c.flagSet("doctor", "")
	format := fs.String("format", "text", "output: text or json")
	backendFlag := fs.String("backend", "auto", "the `BACKEND` the exit code is about: auto (the one runs pick here), audit or notify; default $SYSGATE_BACKEND, else auto, as for the runs")
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(c.Stderr, doctorExitCodes)
	}
	if code, ok := c.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.errorf(ExitUsage, "doctor takes no arguments")
	}
	asked, err := c.backend(*backendFlag)
	if err != nil {
		return c.errorf(ExitUsage, "%v", err)
	}
	if *format != "text" && *format != "json" {
		return c.errorf(ExitUsage, "--format %q: want text or json", *format)
	}
	checks, _ := runPreflight() // its error joins the failed checks' errors, which the report holds
	withNames := *checks
	withNames.Checks = append(slices.Clone(checks.Checks), namesCheck(namesUnavailable()))
	checks = &withNames
	report := diagnose(checks, asked, auditUnavailable(), notifyUnavailable())
	if *format == "text" {
		writeDoctorText(c.Stdout, report)
	} else {
		enc := json.NewEncoder(c.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return c.errorf(ExitInconclusive, "doctor: %v", err)
		}
	}
	if !report.Ready {
		return ExitInconclusive
	}
	return ExitOK
}

// doctorReport is what doctor prints: preflight's checks (the audit
// backend's, and the listener and isolation every run rests on), whether
// each backend can run here, and which one --backend auto runs.
type doctorReport struct {
	*preflight.Report
	Backends []backendStatus `json:"backends"`
	Auto     verdict.Backend `json:"auto"`
	// AutoReason says why auto does not run audit, when it does not.
	AutoReason string `json:"auto_reason,omitempty"`
	// Asked is --backend; Backend the one the exit code is about (auto
	// resolved), and Ready whether it can run here.
	Asked   verdict.Backend `json:"asked"`
	Backend verdict.Backend `json:"backend"`
	Ready   bool            `json:"ready"`
}

// backendStatus is whether one backend can give conclusive runs here.
type backendStatus struct {
	Backend verdict.Backend `json:"backend"`
	Usable  bool            `json:"usable"`
	Detail  string          `json:"detail"` // why not; or what it rests on
}

// diagnose judges each backend from preflight's checks and the harness's
// own reasons (auditWhy, notifyWhy: "" when it can run), and resolves
// asked.
func diagnose(checks *preflight.Report, asked verdict.Backend, auditWhy, notifyWhy string) *doctorReport {
	r := &doctorReport{Report: checks}
	audit := backendStatus{Backend: verdict.BackendAudit, Usable: auditWhy == "" && len(checks.Failed()) == 0,
		Detail: "the kernel's audit records; every check above passed"}
	if !audit.Usable {
		var why []string
		if auditWhy != "" {
			why = append(why, auditWhy)
		}
		if failed := checks.Failed(); len(failed) > 0 {
			names := make([]string, len(failed))
			for i, f := range failed {
				names[i] = f.Name
			}
			why = append(why, fmt.Sprintf("%s failed: %s", ci.Count(len(failed), "check", "checks"), strings.Join(names, ", ")))
		}
		audit.Detail = strings.Join(why, "; ")
	}
	notify := backendStatus{Backend: verdict.BackendNotify, Usable: notifyWhy == "",
		Detail: "a seccomp listener: user notification (Linux 5.0+) and its hang-up at the run's end (5.8+) work here, without privileges"}
	if !notify.Usable {
		notify.Detail = notifyWhy + "; notify needs Linux 5.0+ for user notification, 5.8+ for the listener's hang-up"
	}
	r.Backends = []backendStatus{audit, notify}
	// As the harness resolves auto (its unexported pickBackend): by
	// privileges alone, so a root process runs audit even where a check
	// above fails.
	r.Auto = verdict.BackendAudit
	if auditWhy != "" {
		r.Auto, r.AutoReason = verdict.BackendNotify, "audit unavailable: "+auditWhy
	}
	r.Asked, r.Backend = asked, asked
	if asked == verdict.BackendAuto {
		r.Backend = r.Auto
	}
	r.Ready = r.status(r.Backend).Usable
	return r
}

func (r *doctorReport) status(b verdict.Backend) backendStatus {
	for _, s := range r.Backends {
		if s.Backend == b {
			return s
		}
	}
	return backendStatus{Backend: b}
}

// notifyChecks are the checks the notify backend rests on too; every
// other check of preflight is the audit backend's alone.
var notifyChecks = map[string]bool{"seccomp listener": true, "process isolation": true, "names (network)": true}

// writeDoctorText prints the checks, the backends and the verdict. A
// failed audit check reads as a skip when the backend the exit code is
// about is not audit: it is why audit cannot run here, not a failure of
// the runs this machine gives.
func writeDoctorText(w io.Writer, r *doctorReport) {
	for _, ch := range r.Checks {
		mark, detail, fix := "ok  ", ch.Detail, "fix: "+ch.Fix
		switch {
		case !ch.OK && !notifyChecks[ch.Name] && r.Backend != verdict.BackendAudit:
			mark, detail, fix = "skip", "audit only: "+ch.Detail, "for audit: "+ch.Fix
		case !ch.OK:
			mark = "FAIL"
		case ch.Warn:
			mark = "warn"
		}
		fmt.Fprintf(w, "%s  %-18s %s\n", mark, ch.Name, detail)
		if ch.Fix != "" {
			fmt.Fprintf(w, "      %-18s %s\n", "", fix)
		}
	}
	fmt.Fprintln(w, "backends:")
	for _, s := range r.Backends {
		verdict := "usable"
		if !s.Usable {
			verdict = "not usable"
		}
		fmt.Fprintf(w, "  %-7s %s: %s\n", s.Backend, verdict, s.Detail)
	}
	auto := "runs " + string(r.Auto)
	if r.AutoReason != "" {
		auto += " (" + r.AutoReason + ")"
	}
	if !r.status(r.Auto).Usable {
		auto += ", which cannot run here: auto picks by privileges alone"
	}
	fmt.Fprintf(w, "  %-7s %s\n", verdict.BackendAuto, auto)

	runs := "--backend " + string(r.Backend)
	if r.Asked == verdict.BackendAuto {
		runs = fmt.Sprintf("--backend auto (%s)", r.Backend)
	}
	if r.Ready {
		fmt.Fprintf(w, "ready: runs with %s can be conclusive here\n", runs)
		return
	}
	fmt.Fprintf(w, "not ready: runs with %s would be inconclusive here (exit 3)", runs)
	for _, s := range r.Backends {
		if s.Usable {
			fmt.Fprintf(w, "; --backend %s can run (sysgate doctor --backend %[1]s)", s.Backend)
		}
	}
	fmt.Fprintln(w)
}
