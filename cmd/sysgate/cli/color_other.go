//go:build !linux

package cli

import "os"

// isTerminal reports whether f is a character device: where the verbs
// that run nothing build without Linux, a terminal is one of those (so
// is /dev/null, which gets colour under auto; --color never stops it).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
