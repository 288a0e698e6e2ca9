package baseline

import (
	"bytes"
	"sort"
	"strings"
)

// writeNetwork writes the network section: per call (connect, bind,
// listen, send, resolve), one destination per line, sorted; "- path:
// DEST" with "reason:" and "by:" below for an entry with either.
// "network: {}" keeps an empty section: it still gates.
func writeNetwork(b *bytes.Buffer, d *Document) {
	if !d.HasNetwork && len(d.Network) == 0 {
		return
	}
	if len(d.Network) == 0 {
		b.WriteString("network: {}\n")
		return
	}
	b.WriteString("network:\n")
	for _, op := range netOps {
		opened := false
		for _, e := range d.Network {
			if e.Op != op {
				continue
			}
			if !opened {
				b.WriteString("  " + op.String() + ":\n")
				opened = true
			}
			writeComment(b, "    ", e.Comment)
			b.WriteString("    - ")
			long := e.Reason != "" || e.By != ""
			if long {
				b.WriteString("path: ")
			}
			b.WriteString(yamlString(e.Pattern))
			if e.LineComment != "" {
				b.WriteString(" " + strings.ReplaceAll(e.LineComment, "\n", " "))
			}
			b.WriteString("\n")
			if e.By != "" {
				b.WriteString("      by: " + yamlString(e.By) + "\n")
			}
			if e.Reason != "" {
				b.WriteString("      reason: " + yamlString(e.Reason) + "\n")
			}
		}
	}
}

func sortNetworkEntries(entries []NetworkEntry) {
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if a.Pattern != b.Pattern {
			return a.Pattern < b.Pattern
		}
		return a.By < b.By
	})
}
