// Package cli implements the sysgate command line: a Command with its own
// stdin/stdout/stderr, whose Main takes os.Args and returns an exit code, so
// tests run every verb against buffers.
//
// Verbs live in one file each and register themselves in init() with
// register("baseline validate", ...). Exit codes are the named constants
// below and nothing else.
package cli
