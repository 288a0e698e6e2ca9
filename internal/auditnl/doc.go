// Package auditnl is sysgate's NETLINK_AUDIT socket: a multicast reader
// (with recvmmsg batching) and a control connection, both usable as
// go-libaudit's NetlinkSendReceiver while sysgate keeps the fd, so the
// receive buffer size is ours and ENOBUFS is counted, not hidden. Socket
// creation, bind and options live here; every other raw syscall goes
// through internal/kernel. Errors are wrapped with os.NewSyscallError.
//
// Opening a multicast reader needs CAP_AUDIT_READ in the initial user and
// network namespace; changing audit settings needs CAP_AUDIT_CONTROL.
package auditnl
