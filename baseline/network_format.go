package baseline

import (
	"bytes"
	"sort"
)

// writeNetwork writes the network section: per call (connect, bind,
// listen, send, resolve), one destination per line, sorted; "- path:
// DEST" with "reason:" and "by:" below for an entry with either.
// "network: {}" keeps an empty section: it still gates.
func writeNetwork(b *bytes.Buffer, d *Document) {
	ops := make([]string, len(netOps))
	for i, op := range netOps {
		ops[i] = op.String()
	}
	entries := make([]listEntry, len(d.Network))
	for i, e := range d.Network {
		entries[i] = listEntry{op: e.Op.String(), pattern: e.Pattern, by: e.By, reason: e.Reason, comment: e.Comment, lineComment: e.LineComment}
	}
	writeListSection(b, "network", d.HasNetwork, ops, entries)
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
