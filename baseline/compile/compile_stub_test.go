//go:build !(linux && cgo)

package compile

import (
	"errors"
	"testing"

	"github.com/sysgate/sysgate/baseline"
)

func TestCompileWithoutCgoSaysSo(t *testing.T) {
	f, err := Compile(&baseline.Profile{}, baseline.ModeEnforce, Options{})
	if f != nil || !errors.Is(err, ErrNotSupported) || !errors.Is(err, ErrCompile) {
		t.Fatalf("Compile = %v, %v; want ErrNotSupported and ErrCompile", f, err)
	}
}
