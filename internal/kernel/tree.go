package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Descendants lists the live (not zombie) descendants of pid, pid itself
// left out, by its tasks' children lists (/proc/N/task/T/children, Linux
// 4.2+ with CONFIG_PROC_CHILDREN). With pid a child subreaper, every
// process forked below it stays its descendant, whatever it double-forks:
// an orphan is reparented to pid. Processes that exit during the walk are
// left out; a process whose children cannot be read is an error.
func Descendants(pid int) ([]Info, error) {
	var out []Info
	seen := map[int]bool{pid: true}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		kids, err := children(p)
		if err != nil {
			if p != pid && !processExists(p) {
				continue // gone since its parent listed it
			}
			return out, err
		}
		for _, k := range kids {
			if seen[k] {
				continue
			}
			seen[k] = true
			queue = append(queue, k)
			info, err := ReadInfo(k)
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ESRCH) {
				continue
			}
			if err != nil {
				return out, err
			}
			if !info.Zombie() || threadsAlive(k) {
				out = append(out, info)
			}
		}
	}
	return out, nil
}

// children reads the children of every task of pid.
func children(pid int) ([]int, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if errors.Is(err, os.ErrNotExist) && t.Name() != strconv.Itoa(pid) {
			continue // a thread that exited
		}
		if err != nil {
			return nil, fmt.Errorf("list the children of %d: %w", pid, err)
		}
		for _, f := range bytes.Fields(b) {
			if k, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, k)
			}
		}
	}
	return out, nil
}

// TaskIdent is who made a syscall: the thread's process, its name and
// executable.
type TaskIdent struct {
	PID  int    // thread group id
	Comm string // the thread's name
	Exe  string // "" when unreadable
}

// ReadTaskIdent reads the identity of thread tid (a thread id as the
// seccomp listener reports it, in this process's PID namespace).
func ReadTaskIdent(tid int) (TaskIdent, error) {
	base := "/proc/" + strconv.Itoa(tid)
	b, err := os.ReadFile(base + "/status")
	if err != nil {
		return TaskIdent{PID: tid}, err
	}
	id := parseStatusIdent(b)
	if id.PID == 0 {
		id.PID = tid
	}
	id.Exe, _ = os.Readlink(base + "/exe")
	return id, nil
}

// parseStatusIdent reads Name and Tgid from /proc/N/status. Name escapes
// a newline in the name as "\n", so each field is one line.
func parseStatusIdent(b []byte) TaskIdent {
	var id TaskIdent
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("Name:\t")); ok {
			id.Comm = string(v)
		} else if v, ok := bytes.CutPrefix(line, []byte("Tgid:\t")); ok {
			id.PID, _ = strconv.Atoi(string(v))
			break // Name comes first
		}
	}
	return id
}
