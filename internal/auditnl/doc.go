// Package auditnl is sysgate's raw access to the kernel's audit interface:
// the NETLINK_AUDIT socket (multicast reader and control connection), the
// thread-scoped seccomp filter the audit barrier uses, and a few /proc
// reads. It is the only package of the audit side that imports x/sys/unix;
// everything here returns errors wrapped with os.NewSyscallError.
//
// Opening a multicast reader needs CAP_AUDIT_READ in the initial user and
// network namespace; changing audit settings needs CAP_AUDIT_CONTROL.
package auditnl
