package baseline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sysgate/sysgate/internal/scmp"
)

// loader reads each file once (by cleaned path) and keeps every error.
type loader struct {
	docs map[string]*Document // by fileKey; nil value = failed
	errs ErrorList
	read func(string) ([]byte, error)
	sel  Selector
	// unrecorded: layered entries whose layer does not exist
	unrecorded []UnrecordedLayer
	// partial: a layered entry sel has no value for picks nothing
	// (LoadStackPartial) instead of failing; layers: every layered
	// entry reached and what it picked.
	partial bool
	layers  []LayerChoice
}

func (l *loader) readTop(path string) (*Document, error) {
	data, err := l.read(path)
	if err != nil {
		return nil, fmt.Errorf("load baseline: %w", err)
	}
	return l.parse(filepath.Clean(path), data), nil
}

func (l *loader) parse(path string, data []byte) *Document {
	if d, ok := l.docs[fileKey(path)]; ok {
		return d
	}
	d, errs := parseDocument(path, data)
	l.errs = append(l.errs, errs...)
	l.docs[fileKey(path)] = d
	return d
}

// stack returns doc's extends closure, each file after the files it
// extends, every file once. chain is the path from the named file to doc,
// for naming a cycle.
func (l *loader) stack(doc *Document, chain []*Document) []*Document {
	for i, c := range chain {
		if c == doc {
			names := make([]string, 0, len(chain)-i+1)
			for _, d := range chain[i:] {
				names = append(names, d.Path)
			}
			names = append(names, doc.Path)
			last := chain[len(chain)-1]
			l.errs = append(l.errs, &Error{File: last.Path, Line: refLine(last, doc.Path),
				Message: "extends cycle: " + strings.Join(names, " -> "), Kind: KindExtends})
			return nil
		}
	}
	chain = append(chain, doc)
	var out []*Document
	for _, ref := range doc.Extends {
		if IsLayered(ref.Path) && !l.choose(doc, ref) {
			continue
		}
		target, err := resolveRef(doc.Path, ref, l.sel)
		if err != nil {
			l.addOnce(&Error{File: doc.Path, Line: ref.Line, Message: err.Error(), Kind: KindExtends})
			continue
		}
		base, ok := l.docs[fileKey(target)]
		if !ok {
			data, err := l.read(target)
			if IsLayered(ref.Path) && layerMissing(err) {
				l.addUnrecorded(UnrecordedLayer{File: doc.Path, Line: ref.Line, Pattern: ref.Path,
					Path: target, Values: l.sel.used(ref.Path), Recorded: recordedLayers(doc.Path, ref)})
				continue
			}
			if err != nil {
				l.errs = append(l.errs, &Error{File: doc.Path, Line: ref.Line,
					Message: fmt.Sprintf("extends %s: cannot read %s: %v", ref.Path, target, unwrapPath(err)), Kind: KindExtends})
				l.docs[fileKey(target)] = nil
				continue
			}
			base = l.parse(target, data)
		}
		if base == nil {
			continue
		}
		for _, d := range l.stack(base, chain) {
			if !containsDoc(out, d) {
				out = append(out, d)
			}
		}
	}
	return append(out, doc)
}

// choose notes the layered entry ref of doc and what it picks, and says
// whether to load it: a partial load leaves out an entry the Selector
// has no value for.
func (l *loader) choose(doc *Document, ref Ref) bool {
	c := LayerChoice{File: doc.Path, Line: ref.Line, Pattern: ref.Path}
	for _, name := range LayerPlaceholders(ref.Path) {
		if _, known := Placeholders[name]; known && l.sel[name] == "" {
			c.Missing = append(c.Missing, name)
		}
	}
	if len(c.Missing) > 0 && l.partial {
		c.Recorded = recordedLayers(doc.Path, ref)
	} else if path, err := resolveRef(doc.Path, ref, l.sel); err == nil {
		c.Path = path
	}
	for _, have := range l.layers {
		if have.File == c.File && have.Line == c.Line {
			return len(c.Missing) == 0 || !l.partial
		}
	}
	l.layers = append(l.layers, c)
	return len(c.Missing) == 0 || !l.partial
}

func (l *loader) addUnrecorded(u UnrecordedLayer) {
	for _, have := range l.unrecorded {
		if have.File == u.File && have.Pattern == u.Pattern {
			return
		}
	}
	l.unrecorded = append(l.unrecorded, u)
}

// fileKey identifies a file however it was named (relative, absolute,
// through extends), so each is read and counted once; messages keep the
// path as the user wrote it.
func fileKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func refLine(d *Document, target string) int {
	for _, ref := range d.Extends {
		if filepath.Join(filepath.Dir(d.Path), ref.Path) == target || ref.Path == target {
			return ref.Line
		}
	}
	return 0
}

func containsDoc(list []*Document, d *Document) bool {
	for _, have := range list {
		if have == d {
			return true
		}
	}
	return false
}

// checkDuplicates reports a syscall that appears in two files of one
// extends stack: a runtime update must stay one diff, so an agent's file
// may not repeat its base.
func (l *loader) checkDuplicates(stack []*Document) {
	type where struct {
		file string
		line int
	}
	seen := map[scmp.Arch]map[string]where{}
	visit := func(d *Document, sections []Section) {
		for _, sec := range sections {
			m := seen[sec.Arch]
			if m == nil {
				m = map[string]where{}
				seen[sec.Arch] = m
			}
			for _, e := range sec.Entries {
				if first, dup := m[e.Name]; dup {
					if first.file == d.Path {
						continue // within one file: reported by its parser
					}
					l.addOnce(&Error{File: d.Path, Line: e.Line, Kind: KindDuplicate,
						Message: fmt.Sprintf("%s on %s is already allowed by %s:%d", e.Name, sec.Arch, first.file, first.line)})
					continue
				}
				m[e.Name] = where{d.Path, e.Line}
			}
		}
	}
	programs := map[programKey]where{}
	for _, d := range stack {
		visit(d, d.Syscalls)
		for _, g := range d.Groups {
			visit(d, g.Syscalls)
		}
		for _, e := range d.Programs {
			if first, dup := programs[e.key()]; dup {
				if first.file != d.Path {
					l.addOnce(&Error{File: d.Path, Line: e.Line, Col: e.Col, Kind: KindDuplicate,
						Message: fmt.Sprintf("program %s is already allowed by %s:%d", e.describe(), first.file, first.line)})
				}
				continue
			}
			programs[e.key()] = where{d.Path, e.Line}
		}
	}
}

func (l *loader) addOnce(e *Error) {
	for _, have := range l.errs {
		if *have == *e {
			return
		}
	}
	l.errs = append(l.errs, e)
}
