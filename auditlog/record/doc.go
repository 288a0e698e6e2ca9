// Package record is the pure layer of sysgate's audit reader: it turns the
// text of an AUDIT_SECCOMP record (type 1326) into a typed SeccompEvent.
//
// DecodeSeccomp reads a record into a Seccomp without allocating, so a
// reader can drop the records of sessions nobody watches for the cost of
// a parse; Parser.Event then names the syscall for its architecture
// (libseccomp, through internal/scmp) and decodes the hex-encoded comm and
// exe the kernel writes for strings with spaces or quotes. Header reads
// the serial number every audit record starts with.
//
// It is tested from records captured on a real kernel (testdata/*.log, in
// the "TYPE text" format `sysgate audit tail --raw` prints) and fuzzed
// (FuzzParseSeccomp). It needs no privileges and makes no syscalls.
//
// Errors: everything a record can be wrong about matches ErrMalformed;
// a malformed record is counted by the reader, never guessed at.
package record
