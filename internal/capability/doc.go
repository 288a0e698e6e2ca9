// Package capability names Linux capabilities: the kernel's names
// (include/uapi/linux/capability.h) by number and back. It is data only,
// so the verbs that parse a capability's name build on every OS;
// internal/kernel reads and changes a process's capabilities.
package capability
