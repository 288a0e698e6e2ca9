package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
)

// ErrNotInSnapshot is matched (errors.Is) when a file is read from a
// Snapshot that did not read it: a Snapshot never falls back to the disk.
var ErrNotInSnapshot = errors.New("not read before the run")

// Snapshot holds baseline files as they were before a run. An agent may
// write to its own baselines (a root agent can write anywhere): a run
// compares its files afterwards (Changed), and record builds the new file
// from the snapshot (RecordOptions.Before), never from what the agent
// left on the disk.
type Snapshot struct {
	files map[string]snapshotFile // by fileKey
	order []string                // paths as given, first read first
	// layerDirs are the directories a layered extends entry picks its
	// layers under (layerRoot): a layer created there later is picked too.
	layerDirs []string
}

type snapshotFile struct {
	data []byte
	err  error // the read's error (fs.ErrNotExist for a missing file)
}

// SnapshotFiles reads exactly paths (a Profile's Files, which hold the
// whole extends closure already).
func SnapshotFiles(paths ...string) *Snapshot {
	s := &Snapshot{files: map[string]snapshotFile{}}
	for _, p := range paths {
		s.add(p)
	}
	return s
}

// SnapshotStack reads paths and every file they extend, as far as the
// files parse; a missing file is recorded as missing.
func SnapshotStack(paths ...string) *Snapshot {
	s := &Snapshot{files: map[string]snapshotFile{}}
	for _, p := range paths {
		s.addStack(p)
	}
	return s
}

func (s *Snapshot) add(path string) (snapshotFile, bool) {
	key := fileKey(path)
	if f, ok := s.files[key]; ok {
		return f, false
	}
	data, err := ReadInput(path)
	f := snapshotFile{data: data, err: err}
	s.files[key] = f
	s.order = append(s.order, path)
	return f, true
}

func (s *Snapshot) addStack(path string) {
	f, fresh := s.add(path)
	if !fresh || f.err != nil {
		return
	}
	doc, _ := parseDocument(path, f.data)
	if doc == nil {
		return
	}
	for _, ref := range doc.Extends {
		if IsLayered(ref.Path) {
			if dir := layerRoot(path, ref); !slices.Contains(s.layerDirs, dir) {
				s.layerDirs = append(s.layerDirs, dir)
			}
			// Every layer the entry can pick: the run's is among them.
			for _, layer := range recordedLayers(path, ref) {
				s.addStack(layer)
			}
			continue
		}
		target := filepath.Join(filepath.Dir(path), ref.Path)
		if filepath.IsAbs(ref.Path) {
			target = filepath.Clean(ref.Path)
		}
		s.addStack(target)
	}
}

// Read returns path's bytes as the snapshot read them, or the error that
// read returned.
func (s *Snapshot) Read(path string) ([]byte, error) {
	f, ok := s.files[fileKey(path)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrNotInSnapshot)
	}
	return f.data, f.err
}

// Changed reads every file again and returns those that differ from the
// snapshot: other bytes, created, removed, or no longer readable.
func (s *Snapshot) Changed() []string {
	if s == nil {
		return nil
	}
	var changed []string
	for _, path := range s.order {
		was := s.files[fileKey(path)]
		data, err := ReadInput(path)
		switch {
		case was.err == nil && err == nil && bytes.Equal(was.data, data):
		case errors.Is(was.err, fs.ErrNotExist) && errors.Is(err, fs.ErrNotExist):
		case was.err != nil && err != nil && was.err.Error() == err.Error():
		default:
			changed = append(changed, path)
		}
	}
	return changed
}

// Paths returns the files the snapshot read, in the order first read.
func (s *Snapshot) Paths() []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s.order...)
}

// LayerDirs returns the directories the snapshot's layered extends
// entries pick their layers under, in the order first seen: every layer
// such an entry could pick, recorded or not, lies below one of them.
func (s *Snapshot) LayerDirs() []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s.layerDirs...)
}

// withMissing returns s with path recorded as not existing when s did not
// read it: a file about to be created (a new layer) reads as missing, not
// as unknown to the snapshot.
func (s *Snapshot) withMissing(path string) *Snapshot {
	if s == nil {
		return nil
	}
	if _, ok := s.files[fileKey(path)]; ok {
		return s
	}
	c := &Snapshot{files: map[string]snapshotFile{}, order: append([]string(nil), s.order...)}
	for k, v := range s.files {
		c.files[k] = v
	}
	c.files[fileKey(path)] = snapshotFile{err: fmt.Errorf("%s: %w", path, fs.ErrNotExist)}
	return c
}
