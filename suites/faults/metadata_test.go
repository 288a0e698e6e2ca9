package faults_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sysgate/sysgate/baseline"
	"github.com/sysgate/sysgate/cmd/sysgate/cli"
)

// Issue 43, items 2-4: a file's mode, owner, extended attributes or
// times changed by a call the files observer did not watch: fchmodat2
// (Linux 6.6) by name; fchmod, fchown, fsetxattr and fremovexattr
// through a descriptor opened read-only (a root agent kept CAP_FOWNER
// and CAP_SETFCAP: setuid root and file capabilities on a binary it
// may only read; item 5 fences both, and fsetcap runs with --keep-cap); setxattr (user.*, a store beside the content) and
// utimensat by name. Each was CLEAN on today's code
// (testdata/filetouch.c, modes chmod2 ... utimens): the agent records
// the mode against a workspace file, then changes a file outside the
// workspace with the same calls. The files section judges a metadata
// change as a write of the file.
var _ = Describe("an agent that changes a file's metadata outside its files baseline", RequiresAudit, NamesBackend, Escape, func() {
	BeforeEach(func() { requireAudit() })

	DescribeTable("fails the gate with a write of the file",
		func(ctx SpecContext, backend string, nobody bool, mode string) {
			s := newFileScene(nobody)
			flags := s.flags(backend)
			if mode == "fsetcap" {
				// The fence takes CAP_SETFCAP from a root agent (item 5):
				// an agent that keeps it is still observed.
				flags = append(flags, "--keep-cap", "SETFCAP")
			}
			inside := filepath.Join(s.work, "inside.txt")
			rec := append([]string{"record", "--agent", "filetouch", "-o", s.base}, flags...)
			o := s.run(ctx, append(rec, "--", bin.FileTouch, mode, inside)...)
			Expect(o.Code).To(Equal(cli.ExitOK), "record: %s", o)

			// The target: a program outside the workspace that the
			// baseline lets the agent read (and nothing else), owned by
			// the agent's user so a change by name needs no capability.
			target := filepath.Join(s.home, "tool")
			Expect(os.WriteFile(target, []byte("#!/bin/sh\n"), 0o755)).To(Succeed())
			reads := filepath.Join(filepath.Dir(s.base), "reads.yaml")
			Expect(os.WriteFile(reads, []byte("version: 1\nfiles:\n  read:\n    - "+target+"\n"), 0o644)).To(Succeed())
			if nobody {
				Expect(os.Chown(target, 65534, 65534)).To(Succeed())
				Expect(os.Chown(reads, 65534, 65534)).To(Succeed())
			}
			before, err := os.Stat(target)
			Expect(err).NotTo(HaveOccurred())

			chk := append([]string{"check", "--format", "json", "-b", s.base, "-b", reads}, flags...)
			o = s.run(ctx, append(chk, "--", bin.FileTouch, mode, target)...)
			r := o.Result()
			Expect(o.Output()).NotTo(ContainSubstring("filetouch: failed"), "the attack itself failed: %s", o)
			Expect(o.Code).To(Equal(cli.ExitViolation), "%s changed %s (was %v): %s", mode, target, before.Mode(), o)
			Expect(r.Violations).To(BeEmpty(), "only the file is new: %s", o)
			Expect(r.ProgramViolations).To(BeEmpty(), "only the file is new: %s", o)
			Expect(r.FileViolations).To(ContainElement(And(HaveField("Path", target), HaveField("Op", baseline.FileWrite))), "%s", o)
		},
		func(backend string, nobody bool, mode string) string {
			who := "root"
			if nobody {
				who = "nobody"
			}
			return backend + " as " + who + ": " + mode
		},
		metadataAttacks("audit", false),
		metadataAttacks("notify", false),
		metadataAttacks("notify", true),
	)
})

// metadataAttacks are the modes of items 2-4 on one backend: the
// capability attack needs root (CAP_SETFCAP), chown to root too.
func metadataAttacks(backend string, nobody bool) []TableEntry {
	modes := []string{"chmod2", "fchmod", "fxattr", "setxattr", "utimens", "futimens"}
	if !nobody {
		modes = append(modes, "fchown", "fsetcap")
	}
	var entries []TableEntry
	for _, m := range modes {
		entries = append(entries, Entry(nil, backend, nobody, m))
	}
	return entries
}
