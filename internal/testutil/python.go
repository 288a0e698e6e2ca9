package testutil

import (
	"fmt"
	"os/exec"
	"strings"
)

// PythonExecutable is the real interpreter behind python3 on PATH
// (sys.executable). A version manager's shim (pyenv's is a bash script)
// would otherwise run first and make syscalls of its own, which depend on
// the caller's environment: without HOME, bash asks NSS for the home
// directory and opens sockets.
func PythonExecutable() (string, error) {
	out, err := exec.Command("python3", "-I", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return "", fmt.Errorf("python3: %v", err)
	}
	py := strings.TrimSpace(string(out))
	if py == "" {
		return "", fmt.Errorf("python3 does not know its executable")
	}
	return py, nil
}

// Python is PythonExecutable for tests: a missing python3 is fatal, since
// the project's set-up installs it.
func Python(t TB) string {
	t.Helper()
	py, err := PythonExecutable()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return py
}
