//go:build !(linux && cgo)

package kernel

import (
	"errors"
	"testing"
)

func TestLauncherWithoutCgoSaysSo(t *testing.T) {
	if _, _, _, err := Spawn(&SpawnConfig{}); !errors.Is(err, ErrNotSupported) {
		t.Errorf("Spawn: %v; want ErrNotSupported", err)
	}
	for name, probe := range map[string]func() error{"pid": ProbePidNamespace, "user": ProbeUserNamespace} {
		if err := probe(); !errors.Is(err, ErrNotSupported) {
			t.Errorf("Probe %s namespace: %v; want ErrNotSupported", name, err)
		}
	}
	if err := (SpawnStatus{Kind: StatusError, Step: 3}).Err(); !errors.Is(err, ErrNotSupported) {
		t.Errorf("SpawnStatus.Err: %v; want ErrNotSupported", err)
	}
}
