package baseline

import (
	"os"
	"path/filepath"
	"testing"
)

// A refused access points at the user's own file and a line that exists
// there, never at line 0 of the runtime base it extends.
func TestFileInsertPointsAtTheAgentsFileAndARealLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("runtimes/node.yaml", "version: 1\nfiles:\n  read:\n    - /usr/lib/**\n")
	for _, c := range []struct {
		name, text string
		op         FileOp
		want       int
	}{
		{"with-op.yaml", "version: 1\nagent: a\nextends:\n  - runtimes/node.yaml\nfiles:\n  write:\n    - /tmp/x\n  read:\n    - /w/**\n", FileRead, 9},
		{"other-op.yaml", "version: 1\nagent: a\nextends:\n  - runtimes/node.yaml\nfiles:\n  write:\n    - /tmp/x\n", FileRead, 6},
		{"flow.yaml", "version: 1\nagent: a\nextends:\n  - runtimes/node.yaml\nfiles: {}\n", FileRead, 5},
		{"none.yaml", "version: 1\nagent: a\nextends:\n  - runtimes/node.yaml\nsyscalls:\n  x86_64:\n    - read\n", FileRead, 5},
	} {
		agent := write(c.name, c.text)
		p, err := LoadStack(agent)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		file, line := p.FileInsert(c.op)
		if file != agent || line != c.want {
			t.Errorf("%s: FileInsert(%s) = %s:%d; want %s:%d", c.name, c.op, file, line, agent, c.want)
		}
		d := Diff(p, observedRead("/etc/hostname"))
		if len(d.NewFiles) != 1 || d.NewFiles[0].File != agent || d.NewFiles[0].Line != c.want {
			t.Errorf("%s: Diff's new file findings %+v; want one at %s:%d", c.name, d.NewFiles, agent, c.want)
		}
	}
}

func observedRead(path string) *Observation {
	o := NewObservation("a")
	o.AddFile(path, FileRead, 1)
	return o
}
