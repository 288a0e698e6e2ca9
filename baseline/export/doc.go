// Package export writes a baseline.Profile for other tools: as an OCI
// seccomp profile for Docker, Podman, containerd and Kubernetes
// (ExportOCI, BuildOCI) and as a Security Profiles Operator
// SeccompProfile (ExportSPO, BuildSPO). It reads the profile only.
package export
