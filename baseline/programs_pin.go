package baseline

import (
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A program entry's sha256 pins it by content: a path alone lets an agent
// that can write the listed file run another program under its name. An
// exact entry holds the content it was recorded with (several, when runs
// on different machines were merged); a pattern holds one per matched
// file that ran. An entry without one matches by path only, as before.

// pinned reports whether sum (lowercase hex) is one of the entry's
// recorded contents; true for an entry that pins nothing.
func (e ProgramEntry) pinned(sum string) bool {
	return len(e.SHA256) == 0 || slices.Contains(e.SHA256, sum)
}

// CheckContent says what is wrong with running the program at prog whose
// content hashes to sum ("" when unreadable) under entry e: "" when e
// pins nothing or sum is one of its contents.
func (e ProgramEntry) CheckContent(prog, sum string) string {
	if len(e.SHA256) == 0 || (sum != "" && e.pinned(sum)) {
		return ""
	}
	got := "unreadable to sysgate"
	if sum != "" {
		got = "sha256 " + sum
	}
	return prog + " is " + got + "; " + e.File + ":" + strconv.Itoa(e.Line) + " pins sha256 " + strings.Join(e.SHA256, " or ") +
		" (the file was replaced; record again only if the agent is meant to run the new one)"
}

// validSHA256 reports whether s is a sha256 as record writes it: 64
// lowercase hex digits.
func validSHA256(s string) bool {
	if len(s) != 64 || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// addSHA256 adds sums to the entry's, sorted, each once.
func (e *ProgramEntry) addSHA256(sums ...string) {
	for _, s := range sums {
		if s != "" && !slices.Contains(e.SHA256, s) {
			e.SHA256 = append(e.SHA256, s)
		}
	}
	slices.Sort(e.SHA256)
}

// programSHA256 reads "sha256: HEX" or a list of them into e.
func (p *parser) programSHA256(v *yaml.Node, e *ProgramEntry) bool {
	nodes := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		nodes = v.Content
	}
	for _, n := range nodes {
		s, ok := p.scalar(n, "program sha256")
		if !ok {
			return false
		}
		if !validSHA256(s) {
			p.add(n, KindSchema, "sha256 %q is not 64 lowercase hex digits (record writes it; `sha256sum FILE` prints it)", s)
			return false
		}
		if slices.Contains(e.SHA256, s) {
			p.add(n, KindDuplicate, "sha256 %s given twice in a program entry", s)
			return false
		}
		e.SHA256 = append(e.SHA256, s)
	}
	slices.Sort(e.SHA256)
	return true
}

// AddProgramSHA256 notes that the program at p ran with content sum.
func (o *Observation) AddProgramSHA256(p, sum string) {
	if sum == "" {
		return
	}
	if o.ProgramSHA256 == nil {
		o.ProgramSHA256 = map[string][]string{}
	}
	if !slices.Contains(o.ProgramSHA256[p], sum) {
		o.ProgramSHA256[p] = append(o.ProgramSHA256[p], sum)
		slices.Sort(o.ProgramSHA256[p])
	}
}
