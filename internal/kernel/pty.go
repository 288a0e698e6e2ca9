package kernel

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// OpenPty opens a new pseudo-terminal pair, both ends close-on-exec and
// neither the caller's controlling terminal.
func OpenPty() (master, tty *os.File, err error) {
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: "/dev/ptmx", Err: err}
	}
	master = os.NewFile(uintptr(m), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, os.NewSyscallError("ioctl(TIOCSPTLCK)", err)
	}
	// TIOCGPTPEER opens the terminal end without a path lookup (4.13+).
	r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(m), unix.TIOCGPTPEER, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC)
	t := int(r)
	if errno != 0 {
		n, nerr := unix.IoctlGetInt(m, unix.TIOCGPTN)
		if nerr != nil {
			master.Close()
			return nil, nil, os.NewSyscallError("ioctl(TIOCGPTN)", nerr)
		}
		path := fmt.Sprintf("/dev/pts/%d", n)
		if t, err = unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0); err != nil {
			master.Close()
			return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
	return master, os.NewFile(uintptr(t), "pty"), nil
}

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

// CopyWinsize sets terminal to's window size to from's, when from is a
// terminal.
func CopyWinsize(from, to int) {
	if ws, err := unix.IoctlGetWinsize(from, unix.TIOCGWINSZ); err == nil {
		_ = unix.IoctlSetWinsize(to, unix.TIOCSWINSZ, ws)
	}
}

// MakeRaw puts the terminal fd in raw mode (cfmakeraw) and returns what
// restores its previous mode.
func MakeRaw(fd int) (restore func() error, err error) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, os.NewSyscallError("ioctl(TCGETS)", err)
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Oflag &^= unix.OPOST
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		return nil, os.NewSyscallError("ioctl(TCSETS)", err)
	}
	return func() error {
		if err := unix.IoctlSetTermios(fd, unix.TCSETS, old); err != nil {
			return os.NewSyscallError("ioctl(TCSETS)", err)
		}
		return nil
	}, nil
}
