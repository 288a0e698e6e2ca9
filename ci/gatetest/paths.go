package gatetest

import (
	"os"
	"path/filepath"
)

// fromModule makes a relative path from the environment absolute against
// the root of the Go module the test runs in: go test runs a package's
// test binary in the package's directory, so SYSGATE_OBSERVATIONS=obs
// would otherwise land in security/obs rather than in obs beside go.mod,
// where the next documented command (sysgate report pr-body ...
// obs/*.json) looks. Outside a module the working directory is the root.
func fromModule(p string) (string, error) {
	if p == "" || filepath.IsAbs(p) {
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	root := moduleRootOf(wd)
	if root == "" {
		root = wd
	}
	return filepath.Join(root, p), nil
}

// moduleRootOf is the nearest directory from dir upwards that holds a
// go.mod file, "" when none does.
func moduleRootOf(dir string) string {
	for {
		if info, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !info.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// observationDir is $SYSGATE_OBSERVATIONS, a relative one taken from the
// module's root (fromModule).
func observationDir(getenv func(string) string) (string, error) {
	return fromModule(getenv(EnvObservations))
}
