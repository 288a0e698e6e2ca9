package landlock

import (
	"bufio"
	"bytes"
	"debug/elf"
	"os"
	"strings"
)

// ProgramRules are the rules for the baseline's programs: execve needs
// EXECUTE on the file, and the loader reads it. The kernel also opens a
// dynamically linked program's ELF interpreter (ld.so) and a script's
// "#!" interpreter for execve, with the same EXECUTE check, so those are
// added too (measured: without EXECUTE on ld.so every dynamic program
// fails with EACCES). A program that cannot be read is still listed: the
// builder reports it if it is missing.
func ProgramRules(programs []string) []PathRule {
	var rules []PathRule
	seen := map[string]bool{}
	var add func(p string, depth int)
	add = func(p string, depth int) {
		if p == "" || seen[p] || depth > 4 {
			return
		}
		seen[p] = true
		rules = append(rules, PathRule{Path: p, Read: true, Exec: true})
		add(interpreter(p), depth+1)
	}
	for _, p := range programs {
		add(p, 0)
	}
	return rules
}

// interpreter returns the program the kernel loads to run path: an ELF
// file's PT_INTERP or a script's "#!" line; "" for neither.
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	if bytes.HasPrefix(head, []byte("#!")) {
		line, _, _ := bufio.NewReader(bytes.NewReader(head[2:])).ReadLine()
		fields := strings.Fields(string(line))
		if len(fields) == 0 {
			return ""
		}
		return fields[0]
	}
	e, err := elf.NewFile(f)
	if err != nil {
		return ""
	}
	defer e.Close()
	for _, p := range e.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return ""
		}
		return string(bytes.TrimRight(b, "\x00"))
	}
	return ""
}
