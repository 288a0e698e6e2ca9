// Package risk is sysgate's risk knowledge: which syscalls, argument
// classes, programs and network destinations deserve a reviewer's eye, at
// which level, and the one-line reason every report shows.
//
// A Class names why something is risky (None: it is not), a Level grades
// it (High for what an attacker's payload does). Of, LevelOf, Reason and
// Label answer for a syscall name or an argument class key
// ("socket(AF_PACKET)", see package baseline/argclass); OfProgram and
// ProgramReason for an executable's path, by its file name. The network
// classes (CloudMetadata, ExposedListener, ...) and SensitivePath are
// decided in package baseline, which knows network patterns and file
// globs; their names and reasons live here.
//
// It is a leaf: it imports baseline/argclass and the standard library
// only, needs no privileges and returns no errors.
package risk
