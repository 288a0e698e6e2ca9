package auditctl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// StateDir holds the lock and state files shared by every sysgate process
// on the machine.
const StateDir = "/run/sysgate"

func stateFile(name string) string { return filepath.Join(StateDir, name) }

func openLock(name string) (*os.File, error) {
	if err := os.MkdirAll(StateDir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(stateFile(name), os.O_RDWR|os.O_CREATE, 0o644)
}

func readJSON(path string, v any) (found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return true, nil
}

// writeJSON replaces path atomically (temp file, rename). No fsync: the
// files describe kernel audit settings, which a reboot resets anyway, so
// only a crash of the process matters, and the rename covers that. (On
// this project's CI machine /run is on disk and the fsync alone cost
// ~0.28 ms, twice per run.)
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
