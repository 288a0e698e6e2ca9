package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// WriteOutput appends one step output in the format of GitHub's
// $GITHUB_OUTPUT file: name=value, or for a value with a line break the
// delimiter form actions/toolkit writes (name<<DELIM, the value, DELIM)
// with a random delimiter the value does not hold.
func WriteOutput(w io.Writer, name, value string) error {
	if !strings.ContainsAny(value, "\r\n") {
		_, err := fmt.Fprintf(w, "%s=%s\n", name, value)
		return err
	}
	delim := "ghadelimiter_" + randomHex()
	for strings.Contains(value, delim) || strings.Contains(name, delim) {
		delim = "ghadelimiter_" + randomHex()
	}
	_, err := fmt.Fprintf(w, "%s<<%s\n%s\n%s\n", name, delim, value, delim)
	return err
}

func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
