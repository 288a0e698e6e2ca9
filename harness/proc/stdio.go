package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/sysgate/sysgate/internal/kernel"
)

// Stdio is the plumbing exec.Cmd would do for a child it does not
// start itself: files for fds 0-2, pipes and copy goroutines for readers
// and writers that are not files.
type Stdio struct {
	Files     [3]*os.File
	pty       *ptyRelay      // with WithTTY: the terminal the files are
	parentEnd []*os.File     // closed once the child has them
	stdinW    *os.File       // our end of the stdin pipe, closed by wait
	copies    sync.WaitGroup // output copies only
	mu        sync.Mutex
	err       error
}

func openStdio(in io.Reader, out, errw io.Writer) (*Stdio, error) {
	s := &Stdio{}
	var err error
	if s.Files[0], err = s.input(in); err != nil {
		s.closeAll()
		return nil, err
	}
	if s.Files[1], err = s.output(out); err != nil {
		s.closeAll()
		return nil, err
	}
	if errw != nil && errw == out {
		s.Files[2] = s.Files[1] // one pipe keeps the interleaving, as exec.Cmd does
	} else if s.Files[2], err = s.output(errw); err != nil {
		s.closeAll()
		return nil, err
	}
	return s, nil
}

func (s *Stdio) input(r io.Reader) (*os.File, error) {
	if f, ok := r.(*os.File); ok {
		return f, nil
	}
	if r == nil {
		return s.own(os.Open(os.DevNull))
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.parentEnd = append(s.parentEnd, pr)
	s.stdinW = pw
	// Not waited for: once the tree is gone nobody reads it, and the
	// caller's reader may never end. wait closes pw; the copy then stops
	// at its next write.
	go func() {
		_, err := io.Copy(pw, r)
		// The agent closing its stdin early is not an error of ours.
		if err != nil && !errors.Is(err, os.ErrClosed) && !errors.Is(err, syscall.EPIPE) {
			s.record(err)
		}
		pw.Close()
	}()
	return pr, nil
}

func (s *Stdio) output(w io.Writer) (*os.File, error) {
	if f, ok := w.(*os.File); ok {
		return f, nil
	}
	if w == nil {
		return s.own(os.OpenFile(os.DevNull, os.O_WRONLY, 0))
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.parentEnd = append(s.parentEnd, pw)
	s.copies.Add(1)
	go func() {
		defer s.copies.Done()
		_, err := io.Copy(w, pr)
		s.record(err)
		pr.Close()
	}()
	return pw, nil
}

func (s *Stdio) own(f *os.File, err error) (*os.File, error) {
	if err == nil {
		s.parentEnd = append(s.parentEnd, f)
	}
	return f, err
}

func (s *Stdio) record(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// started closes the parent's copies of the child's ends.
func (s *Stdio) Started() { s.closeAll() }

func (s *Stdio) closeAll() {
	for _, f := range s.parentEnd {
		f.Close()
	}
	s.parentEnd = nil
}

// wait returns once the output copies finished (the agent's tree closed
// its ends: it is gone) and stops feeding stdin.
func (s *Stdio) Wait() error {
	if s.stdinW != nil {
		s.stdinW.Close()
	}
	s.copies.Wait()
	if s.pty != nil {
		s.record(s.pty.close())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// ErrStdio is returned (wrapped) when the agent's stdio could not be set
// up: the agent cannot start.
var ErrStdio = errors.New("stdio")

// OpenLaunchPipes opens what the launcher hands its child: the agent's
// stdio, the go-ahead pipe (control) and the status socket (a unix socket,
// so the session record can carry the run's listener fd).
func OpenLaunchPipes(tty bool, stdin io.Reader, stdout, stderr io.Writer) (stdio *Stdio, controlR, controlW, statusR, statusW *os.File, err error) {
	if tty {
		stdio, err = openPtyStdio(stdin, stdout)
	} else {
		stdio, err = openStdio(stdin, stdout, stderr)
	}
	if err != nil {
		return nil, nil, nil, nil, nil, fmt.Errorf("%w: %v", ErrStdio, err)
	}
	controlR, controlW, err = os.Pipe()
	if err != nil {
		stdio.closeAll()
		return nil, nil, nil, nil, nil, err
	}
	parent, child, err := kernel.StatusSocket()
	if err != nil {
		stdio.closeAll()
		controlR.Close()
		controlW.Close()
		return nil, nil, nil, nil, nil, err
	}
	return stdio, controlR, controlW, os.NewFile(uintptr(parent), "status"), os.NewFile(uintptr(child), "status-child"), nil
}
