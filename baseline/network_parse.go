package baseline

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// NetworkEntry is one line of a network section: a destination pattern
// (as written) and the call it allows, optionally only for one program
// (By, an absolute path).
type NetworkEntry struct {
	Pattern     string
	Op          NetOp
	By          string
	Reason      string
	Comment     string
	LineComment string
	File        string
	Line, Col   int
}

// key tells entries apart within a stack: the same destination for two
// programs is two entries.
func (e NetworkEntry) key() string { return e.Op.String() + " " + e.Pattern + " by " + e.By }

// String is the entry as reports name it: "127.0.0.1:{port}", or
// "api.github.com:443 by /usr/bin/git".
func (e NetworkEntry) String() string {
	if e.By != "" {
		return e.Pattern + " by " + e.By
	}
	return e.Pattern
}

// networkForms is how a network entry is written, for messages.
const networkForms = `"- host:port", "- unix:/path", or "- path: DEST" with "reason: WHY" and/or "by: /program" on the next lines`

// network reads the network section: per call, the destinations the agent
// may reach.
func (p *parser) network(doc *Document, val *yaml.Node) {
	doc.HasNetwork = true
	if val.Kind != yaml.MappingNode {
		p.add(val, KindSchema, "network must map a call (connect, bind, listen, send, resolve) to a list of destinations (\"network: {}\" for none)")
		return
	}
	seenOp := map[NetOp]bool{}
	first := map[string]int{}
	for i := 0; i+1 < len(val.Content); i += 2 {
		k, list := val.Content[i], val.Content[i+1]
		p.dropComments(k)
		op, ok := ParseNetOp(k.Value)
		if !ok {
			p.unknownChoice(k, "call", "network", []string{"connect", "bind", "listen", "send", "resolve"})
			continue
		}
		if seenOp[op] {
			p.add(k, KindDuplicate, "call %s given twice in network", op)
			continue
		}
		seenOp[op] = true
		if list.Kind != yaml.SequenceNode {
			p.add(list, KindSchema, "network %s must be a list of destinations, one per line", op)
			continue
		}
		for _, item := range list.Content {
			e, ok := p.networkEntry(item, op)
			if !ok {
				continue
			}
			if line, dup := first[e.key()]; dup {
				p.add(item, KindDuplicate, "%s %s listed twice (first on line %d)", op, e, line)
				continue
			}
			first[e.key()] = e.Line
			p.riskyNetworkEntry(item, e)
			doc.Network = append(doc.Network, e)
		}
	}
}

// networkEntry reads "- DEST" or "- path: DEST" with "reason: WHY" and
// "by: /program".
func (p *parser) networkEntry(item *yaml.Node, op NetOp) (NetworkEntry, bool) {
	e := NetworkEntry{Op: op, File: p.path, Line: item.Line, Col: item.Column, Comment: item.HeadComment, LineComment: item.LineComment}
	destNode := item
	switch item.Kind {
	case yaml.ScalarNode:
	case yaml.MappingNode:
		destNode = nil
		seen := map[string]bool{}
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			if seen[k.Value] {
				p.add(k, KindDuplicate, "key %q given twice in a network entry", k.Value)
				return e, false
			}
			seen[k.Value] = true
			switch k.Value {
			case "path":
				destNode = v
			case "reason", "by":
				s, ok := p.scalar(v, "network "+k.Value)
				if !ok {
					return e, false
				}
				if k.Value == "reason" {
					e.Reason = s
				} else if e.By = s; !strings.HasPrefix(s, "/") || strings.ContainsAny(s, "*?") {
					p.add(v, KindNetwork, "by %q: write the program's absolute path, without globs", s)
					return e, false
				}
			default:
				p.add(k, KindSchema, "unknown key %q in a network entry (known: path, reason, by); write %s", k.Value, networkForms)
				return e, false
			}
			p.keyComments(i, k, v, &e.Comment, &e.LineComment)
		}
		if destNode == nil {
			p.add(item, KindSchema, "network entry without a path: write %s", networkForms)
			return e, false
		}
	default:
		p.add(item, KindSchema, "write one destination per line: %s", networkForms)
		return e, false
	}
	written, ok := p.scalar(destNode, "network destination")
	if !ok {
		return e, false
	}
	e.Pattern, e.Line, e.Col = written, destNode.Line, destNode.Column
	pat, err := compileNetPattern(written, op)
	if err != nil {
		p.add(destNode, KindNetwork, "%s %s: %v", op, written, err)
		return e, false
	}
	// A glob or a class allows destinations nobody reviewed (any
	// subdomain, any socket in a directory, any public host): say why it
	// is needed.
	if pat.broad() && e.Reason == "" {
		what := "a glob"
		if pat.class != "" {
			what = "a whole class of addresses"
		}
		p.add(destNode, KindNetwork, "%s %s is %s; give a reason: write %s", op, written, what, networkForms)
		return e, false
	}
	return e, true
}

// riskyNetworkEntry reports a high-risk entry without a reason, as a
// risky syscall without one is.
func (p *parser) riskyNetworkEntry(n *yaml.Node, e NetworkEntry) {
	r, _, why := NetworkRisk(e)
	if !r.Risky() {
		return
	}
	switch {
	case e.Reason == "":
		p.add(n, KindRisk, "%s %s is high risk (%s: %s); give a reason: write %s", e.Op, e, r, why, networkForms)
	case strings.HasPrefix(e.Reason, "unreviewed"):
		p.warn(n, KindUnreviewed, "%s %s is high risk (%s) and its reason is still the record-mode placeholder: review it", e.Op, e, r)
	}
}
