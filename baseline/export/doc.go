// Package export writes a baseline.Profile for other tools: as an OCI
// seccomp profile for Docker, Podman, containerd and Kubernetes
// (ExportOCI) and as a Security Profiles Operator
// SeccompProfile (ExportSPO). It reads the profile only.
package export
