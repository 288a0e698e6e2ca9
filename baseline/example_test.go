package baseline_test

import (
	"fmt"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/internal/scmp"
)

// An agent's baseline layered on a runtime base, compared with what a run
// did: new syscalls are violations, with the line where each would go.
func ExampleDiff() {
	p, err := baseline.Load("testdata/agents/python-readonly.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	o := baseline.NewObservation("python-readonly")
	o.Runs = 1
	o.Add(scmp.X86_64, "read", 12)   // from the python3 base
	o.Add(scmp.X86_64, "connect", 1) // from the agent's own file
	o.Add(scmp.X86_64, "ptrace", 1)  // new and risky
	r := baseline.Diff(p, o)
	for _, f := range r.New {
		fmt.Printf("%s:%d: new %s syscall %s (%d calls) [%s]\n", f.File, f.Line, f.Arch, f.Syscall, f.Count, f.Risk)
	}
	fmt.Println(len(r.Unused), "unused entries in the agent's file")
	// Output:
	// testdata/agents/python-readonly.yaml:15: new x86_64 syscall ptrace (1 calls) [process-access]
	// 5 unused entries in the agent's file
}

// A malformed file: every problem, with file and line.
func ExampleParseDocument() {
	_, err := baseline.ParseDocument("agent.yaml", []byte("version: 1\nsyscalls:\n  x86_64:\n    - opnat\n    - mount\n"))
	for _, e := range baseline.Errors(err) {
		fmt.Println(e)
	}
	// Output:
	// agent.yaml:4: unknown syscall "opnat" on x86_64, did you mean "openat"? [syscall]
	// agent.yaml:5: mount is risky (mount): mounts file systems: can shadow paths the agent is expected to use; give a reason, as "- mount: why the agent needs it" [risk]
}
