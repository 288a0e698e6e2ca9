package baseline

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// loadFiles is LoadStackFrom over in-memory files: a commit's tree.
func loadFiles(t *testing.T, files map[string]string, path string) *Profile {
	t.Helper()
	p, err := LoadStackFrom(func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	}, nil, path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func widenedSubjects(ws []Widened) string {
	var out []string
	for _, w := range ws {
		s := string(w.Kind) + " " + w.Subject()
		if w.Arch != 0 {
			s = w.Arch.String() + " " + s
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

const pin1, pin2 = "1111111111111111111111111111111111111111111111111111111111111111", "2222222222222222222222222222222222222222222222222222222222222222"

func TestWiden(t *testing.T) {
	base := "version: 1\nprograms:\n  - path: /usr/bin/git\n    sha256: " + pin1 + "\n  - path: /opt/*/bin/tool\n    reason: r\n" +
		"syscalls:\n  x86_64:\n    - read\n    - socket(AF_UNIX)\n    - mq_notify\n"
	for _, c := range []struct {
		name, cur, want string
	}{
		{"same", base, ""},
		{"narrower: an entry gone", strings.Replace(base, "    - mq_notify\n", "", 1), ""},
		{"a new syscall",
			strings.Replace(base, "    - read\n", "    - read\n    - write\n", 1), "x86_64 syscall write"},
		{"argument-blind where the base had a class", strings.Replace(base, "socket(AF_UNIX)", "socket", 1), "x86_64 syscall socket"},
		{"a new class", strings.Replace(base, "    - socket(AF_UNIX)\n", "    - socket(AF_INET)\n    - socket(AF_UNIX)\n", 1), "x86_64 syscall socket(AF_INET)"},
		{"a new arch", base + "  aarch64:\n    - read\n", "aarch64 syscall read"},
		{"a group", base + "groups:\n  errors:\n    reason: error paths\n    syscalls:\n      x86_64:\n        - rt_sigreturn\n", "x86_64 syscall rt_sigreturn"},
		{"a pin dropped", strings.Replace(base, "    sha256: "+pin1+"\n", "", 1), "pin /usr/bin/git"},
		{"a pin changed", strings.Replace(base, pin1, pin2, 1), "pin /usr/bin/git"},
		{"a pin narrowed to the same", base, ""},
		{"a program", strings.Replace(base, "programs:\n", "programs:\n  - /usr/bin/jq\n", 1), "program /usr/bin/jq"},
		{"a program the base's pattern allowed", strings.Replace(base, "programs:\n", "programs:\n  - path: /opt/x/bin/tool\n    reason: r\n", 1), ""},
		{"another pattern", strings.Replace(base, "/opt/*/bin/tool", "/opt/*/bin/*", 1), "program /opt/*/bin/*"},
		{"programs no longer gated", "version: 1\nsyscalls:\n  x86_64:\n    - read\n    - socket(AF_UNIX)\n    - mq_notify\n", "ungated "},
		{"a channel left unmonitored", base + "unmonitored:\n  x86_64:\n    - io_uring_setup: r\n", "x86_64 unmonitored io_uring_setup"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := loadFiles(t, map[string]string{"agent.yaml": base}, "agent.yaml")
			cur := loadFiles(t, map[string]string{"agent.yaml": c.cur}, "agent.yaml")
			if got := widenedSubjects(Widen(b, cur)); got != c.want {
				t.Errorf("widened %q, want %q", got, c.want)
			}
		})
	}
}

func TestWidenFromNothing(t *testing.T) {
	cur := loadFiles(t, map[string]string{"agent.yaml": "version: 1\nsyscalls:\n  x86_64:\n    - read\n"}, "agent.yaml")
	ws := Widen(nil, cur)
	if len(ws) != 1 || ws[0].Syscall != "read" || ws[0].File != "agent.yaml" || ws[0].Line != 4 {
		t.Errorf("a file the base lacks: %+v, want read at agent.yaml:4", ws)
	}
}

// Issue 43, item 7: a section the base file did not have widens by every
// entry the pull request adds to it; the file may be layered over one
// that gates the section.
func TestWidenSectionAdded(t *testing.T) {
	plain := map[string]string{"agent.yaml": "version: 1\nsyscalls:\n  x86_64:\n    - read\n"}
	cur := map[string]string{"agent.yaml": "version: 1\nprograms:\n  - /usr/bin/git\nnetwork:\n  connect:\n    - 203.0.113.7:443\n" +
		"syscalls:\n  x86_64:\n    - read\n"}
	got := widenedSubjects(Widen(loadFiles(t, plain, "agent.yaml"), loadFiles(t, cur, "agent.yaml")))
	if want := "program /usr/bin/git; network connect 203.0.113.7:443"; got != want {
		t.Errorf("sections added: widened %q, want %q", got, want)
	}
	if got := Widen(loadFiles(t, plain, "agent.yaml"), loadFiles(t, plain, "agent.yaml")); len(got) != 0 {
		t.Errorf("no section on either side: %+v", got)
	}
}
