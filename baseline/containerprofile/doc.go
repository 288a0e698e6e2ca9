// Package containerprofile reads a container seccomp profile (OCI JSON as
// Docker, Podman and runc take it: ReadContainerProfile) and compares it
// with what an agent needs (NeedsOfProfile, NeedsOfObservation): per
// syscall and argument class, allowed, denied or conditional on the
// kernel or capabilities (Compare).
package containerprofile
