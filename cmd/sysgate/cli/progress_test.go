//go:build linux

package cli

import (
	"bytes"
	"os"
	"testing"

	"github.com/sysgate/sysgate/harness"
	"github.com/sysgate/sysgate/internal/scmp"
	"github.com/sysgate/sysgate/observe"
)

func TestProgressPrintsEachSyscallOnce(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, seen: map[string]bool{}, procs: map[harness.ProcessSource]bool{}}
	ev := &observe.Syscall{Arch: scmp.X86_64, Name: "socket", PID: 7, Exe: "/usr/bin/python3"}
	p.event(ev)
	p.event(ev)
	p.event(&observe.Syscall{Arch: scmp.I386, Name: "socket", PID: 8, Exe: "/tmp/int80"})
	want := "sysgate: + x86_64 socket                /usr/bin/python3 (pid 7)\n" +
		"sysgate: + i386 socket                  /tmp/int80 (pid 8)\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	if newProgress(&b) != nil {
		t.Error("progress on a non-terminal")
	}
}

func TestProgressNamesTheAgentStart(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	var b bytes.Buffer
	p := &progress{w: &b, seen: map[string]bool{}, procs: map[harness.ProcessSource]bool{}}
	p.event(&observe.Syscall{Arch: scmp.X86_64, Name: "execve", PID: 7, Exe: self})
	if want := "sysgate: + x86_64 execve                the agent's start (pid 7)\n"; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

// TestProgressEscapesTheExe: the live lines go to the caller's terminal,
// so a program path with a screen clear in it must arrive as text.
func TestProgressEscapesTheExe(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, seen: map[string]bool{}, procs: map[harness.ProcessSource]bool{}}
	p.event(&observe.Syscall{Arch: scmp.X86_64, Name: "socket", PID: 7, Exe: "/tmp/\x1b[2J\x1b]0;pwned\x07x"})
	if want := `sysgate: + x86_64 socket                /tmp/\x1b[2J\x1b]0;pwned\x07x (pid 7)` + "\n"; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

// TestErrorsEscapeAgentNames: an error or warning can quote what the agent
// named (an exec mismatch, an inconclusive reason): it reaches the
// terminal as text, line by line.
func TestErrorsEscapeAgentNames(t *testing.T) {
	var b bytes.Buffer
	c := &Command{Stderr: &b}
	c.errorf(ExitViolation, "not writing %s: %s", "a.yaml", "the exec named /tmp/\x1b]0;pwned\x07\nsecond line")
	if want := `sysgate: not writing a.yaml: the exec named /tmp/\x1b]0;pwned\x07` + "\nsecond line\n"; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}
