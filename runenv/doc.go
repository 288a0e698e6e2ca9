// Package runenv is the environment a baseline fingerprints and picks
// its layers by, built from what internal/envprobe reads: the host's
// (HostEnvironment: the kernel by version, the OS, libc), a command's
// before it runs (CommandEnvironment: plus the runtimes it will start),
// and a run's after it ran (RunEnvironment: the runtimes its programs
// were). Selector is the one way an environment picks layers; the verbs
// that run nothing (validate, baseline diff) pick with HostSelector or,
// given the run's command, CommandSelector, as the run itself does.
//
// It runs nothing and needs no privilege: it reads files.
package runenv
