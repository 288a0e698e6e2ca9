package baseline

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// MaxInputSize bounds every file sysgate reads as input (baselines,
// observations, results). The largest committed baseline is a few KiB.
const MaxInputSize = 8 << 20

// ErrBadInput is matched (errors.Is) when an input path is not a regular
// file of at most MaxInputSize bytes: a FIFO, a device, a directory or an
// oversized file is the user's to fix (exit 2), and reading it could hang
// or grow without bound.
var ErrBadInput = errors.New("not a readable input file")

// ReadInput reads path as input: a regular file of at most MaxInputSize
// bytes. It never blocks on a FIFO or a device (opened non-blocking, then
// refused) and never reads more than MaxInputSize+1 bytes, even if the
// file grows meanwhile.
func ReadInput(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("%s: %w: a directory, want a file", path, ErrBadInput)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s: %w: a %s, want a regular file", path, ErrBadInput, fileKind(fi.Mode()))
	case fi.Size() > MaxInputSize:
		return nil, fmt.Errorf("%s: %w: %d bytes, more than the %d MiB limit", path, ErrBadInput, fi.Size(), MaxInputSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxInputSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxInputSize {
		return nil, fmt.Errorf("%s: %w: grew past the %d MiB limit while being read", path, ErrBadInput, MaxInputSize>>20)
	}
	return data, nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "FIFO"
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "block device"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeSymlink != 0:
		return "symlink"
	}
	return "special file"
}
