package proc

import (
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/sysgate/sysgate/internal/kernel"
)

// ptyRelay is the pseudo-terminal WithTTY gives the agent: its terminal
// end is the agent's fds 0-2 and controlling terminal; sysgate holds the
// master and copies the caller's input in and the terminal's output out.
type ptyRelay struct {
	master  *os.File
	restore func() error // the caller's terminal mode, when it was made raw
}

// openPtyStdio gives the agent a fresh terminal relayed to in and out.
func openPtyStdio(in io.Reader, out io.Writer) (*Stdio, error) {
	master, tty, err := kernel.OpenPty()
	if err != nil {
		return nil, err
	}
	p := &ptyRelay{master: master}
	s := &Stdio{pty: p, Files: [3]*os.File{tty, tty, tty}, parentEnd: []*os.File{tty}}
	if f, ok := in.(*os.File); ok && kernel.IsTerminal(int(f.Fd())) {
		kernel.CopyWinsize(int(f.Fd()), int(master.Fd()))
		// Keys go to the agent's terminal as typed (its line discipline
		// echoes and edits); the caller's would do it a second time.
		if p.restore, err = kernel.MakeRaw(int(f.Fd())); err != nil {
			master.Close()
			tty.Close()
			return nil, err
		}
	} else if f, ok := out.(*os.File); ok {
		kernel.CopyWinsize(int(f.Fd()), int(master.Fd()))
	}
	if in != nil {
		// Not waited for, as with a pipe: the caller's reader may never
		// end. close stops it at its next write.
		go func() { _, _ = io.Copy(master, in) }()
	}
	if out == nil {
		out = io.Discard // the agent's output must be drained, or it blocks
	}
	s.copies.Add(1)
	go func() {
		defer s.copies.Done()
		_, err := io.Copy(out, master)
		// EIO: every process of the run has closed the terminal.
		if err != nil && !errors.Is(err, syscall.EIO) {
			s.record(err)
		}
	}()
	return s, nil
}

// close releases the terminal and gives the caller's its mode back.
func (p *ptyRelay) close() error {
	err := p.master.Close()
	if p.restore != nil {
		err = errors.Join(err, p.restore())
	}
	return err
}
