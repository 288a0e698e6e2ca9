// Package landlock builds the Landlock ruleset that `sysgate enforce`
// puts around an agent: the file-system half of a baseline's `files:`
// and `programs:` sections, turned into path-beneath rules, and the TCP
// ports of its `network:` section, turned into port rules, both of which
// the kernel enforces without root.
//
//   - abi.go: ABI, the kernel's Landlock ABI version, probed once;
//   - access.go: which access rights sysgate handles per ABI and how a
//     rule's read/write/exec/delete map onto them;
//   - ruleset.go: NewRuleset, a ruleset descriptor built from PathRules,
//     and RestrictSelf, the thread-scoped landlock_restrict_self;
//   - net.go: Build, a ruleset from a Spec of path rules and TCP port
//     rules (ABI 4), either part optional;
//   - netrules.go: NetRulesFromEntries, the pure translation of the
//     network section's connect and bind entries into port rules, with
//     the places where enforce is wider than check and the rights it
//     cannot handle (port "*" or "{port}"). UDP and Unix sockets are
//     beyond Landlock's network rules;
//   - globs.go: RulesFromGlobs, the pure translation of `files:` globs
//     (placeholders already expanded) into PathRules, with the places
//     where enforce is wider than check;
//   - denial.go: ParseAccess and ParseDomain, the pure parsers of
//     Landlock's audit records (AUDIT_LANDLOCK_ACCESS 1423,
//     AUDIT_LANDLOCK_DOMAIN 1424).
//
// Landlock needs no privilege: an unprivileged task may create a ruleset
// and restrict itself once no_new_privs is set. Its denials reach audit
// only when audit is enabled (enabled=1) and the restriction asked for
// logging after execve (RestrictLogNewExec); an unprivileged run cannot
// read audit at all, so there the agent's EACCES is all there is to see.
//
// What the launcher does with a Ruleset (spawn.c's child, in this
// order, each step reporting its name on failure):
//
//  1. the parent builds the ruleset before vfork (NewRuleset opens every
//     rule's path with the parent's rights) and passes its descriptor;
//     close-on-exec is right: the child uses it before execve and the
//     agent never holds it;
//  2. the child does every step that opens a file first (loginuid, cwd,
//     descriptors, capability drop, setgid/setuid): after the
//     restriction those opens would be denied unless a rule allowed them;
//  3. prctl(PR_SET_NO_NEW_PRIVS): restrict_self needs it once the child
//     has no CAP_SYS_ADMIN (after the uid drop, or unprivileged);
//  4. landlock_restrict_self(fd, LogFlags(abi)): after the uid drop is
//     fine, the domain lives in the credentials and survives setuid and
//     execve; before the seccomp load, so the filter need not allow it;
//  5. the seccomp filter load, still last, then execve of a program
//     that the rules allow to execute (ProgramRules: the program and its
//     ELF or "#!" interpreter).
//
// Errors: ErrNotSupported (matched by *UnsupportedError) when the kernel
// has no Landlock or it is disabled at boot: conclusive, enforce cannot
// restrict files on this machine; Build returns one too for port rules
// on a kernel below ABI 4. Errors of single rules name the path or port.
package landlock
