package harness

import (
	"slices"
	"testing"

	"github.com/sysgate/sysgate/baseline"
)

func TestRuntimeDirs(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []baseline.Runtime
		want []string
	}{
		{"pyenv", []baseline.Runtime{{Name: "python", Version: "3.11.7", Path: "/root/.pyenv/versions/3.11.7/bin/python3.11"}}, []string{"/root/.pyenv/versions/3.11.7"}},
		{"debian python", []baseline.Runtime{{Name: "python", Version: "3.11.2", Path: "/usr/bin/python3.11"}}, []string{"/usr/lib/python3.11", "/usr/lib/python3/dist-packages", "/usr/local/lib/python3.11"}},
		{"debian node", []baseline.Runtime{{Name: "node", Version: "20.19.2", Path: "/usr/bin/node"}}, []string{"/usr/lib/node_modules", "/usr/lib/nodejs", "/usr/local/lib/node_modules", "/usr/share/nodejs"}},
		{"go", []baseline.Runtime{{Name: "go", Version: "1.26.8"}}, nil},
		{"not in a bin directory", []baseline.Runtime{{Name: "python", Version: "3.13.1", Path: "/opt/py/python3"}}, nil},
		{"unknown system python version", []baseline.Runtime{{Name: "python", Path: "/usr/bin/python3"}}, nil},
	} {
		got := runtimeDirs(c.in)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: runtimeDirs = %q, want %q", c.name, got, want)
		}
	}
}
