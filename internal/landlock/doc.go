// Package landlock builds the Landlock ruleset that `sysgate enforce`
// puts around an agent: the file-system half of a baseline's `files:`
// and `programs:` sections, turned into path-beneath rules the kernel
// enforces without root.
//
//   - abi.go: ABI, the kernel's Landlock ABI version, probed once;
//   - access.go: which access rights sysgate handles per ABI and how a
//     rule's read/write/exec/delete map onto them;
//   - ruleset.go: NewRuleset, a ruleset descriptor built from PathRules,
//     and RestrictSelf, the thread-scoped landlock_restrict_self;
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
// Errors: ErrNotSupported (matched by *UnsupportedError) when the kernel
// has no Landlock or it is disabled at boot: conclusive, enforce cannot
// restrict files on this machine. Errors of single rules name the path.
package landlock
