package ci

import (
	"fmt"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/verdict"
)

// maxNamesShown is how many looked-up names the text report lists; the
// JSON result keeps them all (a run that tunnels through DNS looks up
// hundreds).
const maxNamesShown = 20

// networkViolationLine is one network violation for a terminal or a log:
// "connect 127.0.0.2:9 x1 (not in the baseline; it has 127.0.0.1:{port})
// by /usr/bin/python3.11 pid 41 (connect)". Where the entry would go is
// left to the caller (an annotation stands on that file).
func networkViolationLine(v verdict.NetworkViolation) string {
	v.File = ""
	return v.String()
}

// netVerb is what an agent does to a destination, for a sentence: "connect
// to", "listen on".
func netVerb(op baseline.NetOp) string {
	switch op {
	case baseline.NetConnect:
		return "connect to"
	case baseline.NetListen:
		return "listen on"
	case baseline.NetSend:
		return "send to"
	case baseline.NetResolve:
		return "look up"
	}
	return op.String()
}

// networkFix is what to do about a network violation: list the
// destination (with a reason when it is risky) if the agent should reach
// it.
func networkFix(v verdict.NetworkViolation) string {
	fix := fmt.Sprintf("If the agent should %s it (otherwise fix the agent), add to `network:` `%s:` in the baseline", netVerb(v.Op), v.Op)
	if v.Risk.Risky() {
		fix += fmt.Sprintf(" (a %s destination needs a reason)", v.Risk)
	}
	return fix + "; a `by: PROGRAM` line under the path allows it for that program only:" + hintBlock(pathLines(v.Dest, v.Risk.Risky()))
}

// writeNetworkViolations is the text report's list of destinations
// outside the baselines, risky ones first.
func writeNetworkViolations(b *strings.Builder, vs []verdict.NetworkViolation, p Palette) {
	fmt.Fprintf(b, "\n%s outside the baseline:\n", Count(len(vs), "destination", "destinations"))
	for _, v := range byDanger(vs, networkDanger) {
		fmt.Fprintf(b, "  %s\n", p.risk(networkViolationLine(v), v.Risk.Risky()))
	}
}

// writeNames is the text report's list of the names the run looked up
// and what the answers gave, so that an address in a violation can be
// read against them.
func writeNames(b *strings.Builder, names []verdict.ResolvedName) {
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s looked up:\n", Count(len(names), "name", "names"))
	for i, n := range names {
		if i == maxNamesShown {
			fmt.Fprintf(b, "  and %d more (--format json lists them all)\n", len(names)-i)
			break
		}
		line := term(n.Name)
		if len(n.Addrs) > 0 {
			line += " -> " + term(strings.Join(n.Addrs, ", "))
		}
		if n.Rcode != "" {
			line += " (" + term(n.Rcode) + ")"
		}
		fmt.Fprintf(b, "  %s\n", line)
	}
}

// networkAnnotations are an error per network violation of the report's
// gate runs, on the baseline that would list it.
func (r *Report) networkAnnotations() []Annotation {
	var out []Annotation
	for _, run := range r.gateRuns() {
		for _, v := range byDanger(run.NetworkViolations, networkDanger) {
			title := fmt.Sprintf("sysgate: %s %s by %s", v.Op, term(v.Dest), run.Agent)
			if v.Risk.Risky() {
				title = fmt.Sprintf("sysgate: risky %s %s (%s) by %s", v.Op, term(v.Dest), v.Risk.Label(v.Level), run.Agent)
			}
			msg := fmt.Sprintf("%s: %s.\n%s", run.Agent, networkViolationLine(v), networkFix(v))
			out = append(out, Annotation{Level: "error", File: r.baselinePath(run, v.File), Title: title, Message: msg, danger: networkDanger(v)})
		}
	}
	return out
}

// addSARIFNetwork adds a result per network violation of the gate runs:
// rule network/<call>, or network/<call>-<risk> for a risky destination.
func (r *Report) addSARIFNetwork(run *sarif.Run) {
	for _, gr := range r.gateRuns() {
		for _, v := range gr.NetworkViolations {
			op := v.Op.String()
			id, text := "network/"+op, fmt.Sprintf("%s outside the baseline's network section", op)
			props := sarif.Properties{"tags": []string{"security", "network"}, "security-severity": "5.0", "risk": "none", "risk-level": "none"}
			if v.Risk.Risky() {
				id = "network/" + op + "-" + string(v.Risk)
				text = fmt.Sprintf("%s outside the baseline's network section (%s risk)", op, v.Risk.Label(v.Level))
				props = sarifRuleProperties("network", v.Risk, v.Level)
			}
			run.AddRule(id).WithName(strings.TrimPrefix(id, "network/")).WithDescription(text).
				WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel("error")).WithProperties(props)
			addSARIFResult(run, id, fmt.Sprintf("%s: %s. %s", gr.Agent, networkViolationLine(v), networkFix(v)), r.baselinePath(gr, v.File), 0)
		}
	}
}

// writeNetworkSummary is the step summary's table of destinations outside
// the baselines, by the gate's runs.
func (r *Report) writeNetworkSummary(b *strings.Builder) {
	var rows []rankedRow
	for _, run := range r.gateRuns() {
		for _, v := range byDanger(run.NetworkViolations, networkDanger) {
			risk, dest, by, has := "-", code(v.Dest), "-", "-"
			if v.Risk.Risky() {
				risk = "**" + cell(v.Risk.Label(v.Level)) + "**"
			}
			if v.Addr != "" {
				dest += " (" + code(v.Addr) + ")"
			}
			if v.Program != "" {
				by = cell(term(v.Program))
			}
			if v.Has != "" {
				has = cell(v.Has)
			}
			rows = append(rows, rankedRow{networkDanger(v), fmt.Sprintf("| %s | %s | %s | %s | %d | %s | %s |\n", cell(run.Agent), cell(v.Op.String()), dest, risk, v.Count, by, has)})
		}
	}
	if len(rows) == 0 {
		return
	}
	rows = byDanger(rows, rankedRow.rank)
	b.WriteString("### Destinations outside the baseline\n\nNot in the baseline's network section: list each one (a risky one with a reason), or fix the agent.\n\n")
	b.WriteString("| Agent | Call | Destination | Risk | Count | By | Why |\n|---|---|---|---|--:|---|---|\n")
	for _, row := range rows {
		b.WriteString(row.text)
	}
	b.WriteString("\n")
}

// NetworkEntryText is a network finding as its entry reads: "connect
// api.github.com:443 by /usr/bin/git".
func NetworkEntryText(f baseline.NetworkFinding) string {
	s := f.Op.String() + " " + inlineCode(f.Dest)
	if f.Program != "" {
		s += " by " + inlineCode(f.Program)
	}
	return s
}
