package baseline

import (
	"strings"
	"testing"

	"github.com/sysgate/sysgate/internal/scmp"
)

func TestParseClasses(t *testing.T) {
	native := scmp.Native()
	doc := "version: 1\nsyscalls:\n  " + native.String() + ":\n" +
		"    - socket(PF_UNIX)\n" +
		"    - openat(read)\n" +
		"    - \"clone(CLONE_NEWUSER)\": the sandbox test makes a user namespace\n" +
		"    - read\n"
	d, err := ParseDocument("a.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range d.Syscalls[0].Entries {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "clone(CLONE_NEWUSER) openat(read) read socket(AF_UNIX)" {
		t.Errorf("entries %s", got)
	}
	// fmt writes the canonical spelling, and reads back the same.
	again, err := ParseDocument("a.yaml", d.Format())
	if err != nil || string(again.Format()) != string(d.Format()) {
		t.Errorf("format does not round-trip: %v\n%s", err, d.Format())
	}

	for _, c := range []struct{ doc, want string }{
		{"    - clone(CLONE_NEWUSER)\n", "clone(CLONE_NEWUSER) is risky (namespace, high)"},
		{"    - socket(AF_NOPE)\n", "a.yaml:4: socket(AF_NOPE): unknown address family"},
		{"    - socket\n    - socket(AF_UNIX)\n", "the argument-blind entry already allows every class"},
		{"    - socket(AF_UNIX)\n    - socket(PF_UNIX)\n", "socket(AF_UNIX) listed twice"},
		{"    - nosuch(AF_UNIX)\n", "unknown syscall \"nosuch\""},
	} {
		_, err := ParseDocument("a.yaml", []byte("version: 1\nsyscalls:\n  "+native.String()+":\n"+c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.doc, err, c.want)
		}
	}
	// An argument-blind entry of a classed syscall loads, and warns.
	d, err = ParseDocument("a.yaml", []byte("version: 1\nsyscalls:\n  "+native.String()+":\n    - socket\n    - read\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || d.Warnings[0].Kind != KindArgBlind || !strings.Contains(d.Warnings[0].Message, "socket(AF_UNIX)") {
		t.Errorf("warnings %v", d.Warnings)
	}
}

func TestProfileAllowsClasses(t *testing.T) {
	native := scmp.Native()
	path := writeFile(t, t.TempDir(), "a.yaml", "version: 1\nsyscalls:\n  "+native.String()+":\n    - socket(AF_UNIX)\n    - prctl: any option\n    - read\n")
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{
		"socket(AF_UNIX)": true, "socket(AF_INET)": false, "socket": false,
		"prctl(PR_SET_SECCOMP)": true, "prctl": true, "read": true,
	} {
		if got := p.Allows(native, key); got != want {
			t.Errorf("Allows(%s) = %v", key, got)
		}
	}
	if got := p.Classes(native, "socket"); len(got) != 1 || got[0] != "socket(AF_UNIX)" {
		t.Errorf("Classes(socket) = %v", got)
	}
	o := NewObservation("a")
	o.Add(native, "socket(AF_INET)", 1)
	o.Add(native, "prctl(PR_SET_NAME)", 2)
	d := Diff(p, o)
	if len(d.New) != 1 || d.New[0].Syscall != "socket(AF_INET)" {
		t.Errorf("new %+v", d.New)
	}
	// The blind prctl was used through a class; socket(AF_UNIX) and read
	// were not.
	if len(d.Unused) != 2 || d.Unused[0].Syscall != "read" || d.Unused[1].Syscall != "socket(AF_UNIX)" {
		t.Errorf("unused %+v", d.Unused)
	}
}
