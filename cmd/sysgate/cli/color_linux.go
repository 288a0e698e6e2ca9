package cli

import (
	"os"

	"github.com/sysgate/sysgate/internal/kernel"
)

// isTerminal reports whether f is a terminal (TCGETS answers).
func isTerminal(f *os.File) bool { return kernel.IsTerminal(int(f.Fd())) }
