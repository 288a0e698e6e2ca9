// Package netproxy observes and gates the socket calls of a run on the
// notify backend without a race: the supervisor performs each call
// itself, on the caller's own socket, with the address it decided on.
//
// A filter that makes the calls of Syscalls notify holds each one;
// Serve reads the address (and a send's payload) from the caller's
// memory once, asks decide about that copy, takes the caller's socket
// over with pidfd_getfd (a duplicate of the same open file: connecting
// it connects the caller's socket) and performs connect, bind, listen
// or the send(s) there, then answers with the result (0, a byte count, or
// -errno: EINPROGRESS for a non-blocking connect, whose end the caller
// polls on its own descriptor). A second thread that rewrites the
// sockaddr after the read changes nothing: the caller's memory is
// never read again. A refused call fails with EACCES, as a Landlock or
// LSM denial does, and is not performed.
//
// Each call runs on a locked thread of its own (at most 64 at once;
// Serve waits for a free one), so a blocking connect never stalls the
// listener. The thread takes the caller's credentials for good (uids,
// gids, groups, umask and, in the supervisor's user namespace,
// effective capabilities) and ends with the call, so:
//   - bind below ip_unprivileged_port_start needs the caller's
//     CAP_NET_BIND_SERVICE, not the supervisor's;
//   - a Unix socket path is searched and written with the caller's
//     permissions, and a bound one is created with its uid and umask;
//   - SO_PEERCRED and SCM_CREDENTIALS show the caller's uid and gid.
//
// Unix socket paths are looked up from the caller's cwd and root (held
// open from /proc/<tid>/cwd and /root before the thread turns into the
// caller). A connect or send opens the socket the name leads to
// (O_PATH, symlinks followed in the caller's root), asks decide about
// where it led, and connects to /proc/self/fd/N, which the kernel
// follows to exactly that inode: a symlink swapped after the decision
// changes nothing, and sun_path never grows. A bind (which creates
// the name) enters the directory and binds the last component.
// Abstract names and IP addresses need nothing: they are looked up in
// the socket's own network namespace, the caller's.
//
// Sends: sendto with an address and every sendmsg and sendmmsg (their
// addresses are in memory) are performed; a send to the connected peer is not asked
// about (decided at connect) and not reported. At most 256 KiB of
// payload is read per call: a stream send returns a short count beyond
// it, a larger datagram fails with EMSGSIZE. Control data passes;
// SCM_RIGHTS descriptors are the caller's, taken over one by one, so
// the receiver gets the caller's files. The send never raises SIGPIPE
// here; the caller gets it on EPIPE unless it passed MSG_NOSIGNAL.
//
// sendmmsg is served as the kernel serves it: message by message, as
// sendmsgs on the same socket (vlen capped at UIO_MAXIOV, 1024; a
// message's own MSG_EOR honoured). Each msghdr is read once; each
// message with an address is asked about (one Access each, in order,
// up to the first refusal); the batch ends at the first message that
// fails (refused: EACCES) or is sent short, and the answer is the
// number sent, or that failure's errno if none was. Each sent
// message's byte count is written to its msg_len (process_vm_writev);
// a message whose msg_len cannot be written is sent but not counted
// and ends the batch, as in the kernel. The 256 KiB of payload is for
// the whole call: the first message is capped as a sendmsg is, and
// the batch ends before a later one that does not fit whole (a short
// count, which callers handle as after any partial batch: glibc's
// resolver then sends its second query on its own).
//
// Not exact:
//   - SO_PEERCRED's pid is the supervisor's (the kernel takes the
//     acting task's): a peer that authorises by pid (polkit) sees the
//     supervisor; decide should refuse such sockets;
//   - a Unix socket bound to a relative name reports (getsockname)
//     the last component only;
//   - outside the supervisor's root, a relative Unix path is looked
//     up beneath the caller's cwd only (".." out of it fails, EXDEV);
//   - a sendmmsg's messages are asked about before the first is sent
//     (decide runs on Serve's goroutine, which no send may hold up):
//     a message allowed after one that then fails to send is reported
//     but not sent;
//   - msg_len is written to the caller's pid after checking that its
//     call still waits: were the caller killed in between and its pid
//     reused at once, the 4 bytes would go to the new process;
//   - only the native arch is served (not the 32-bit compat one).
//
// Needs: the filter loaded with SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
// (kernel.InstallKillableListenerFilter; Linux 5.19+): otherwise a
// signal between the proxy's connect and its answer makes the caller
// restart the call (EISCONN). pidfd_getfd needs ptrace access to the
// callers; taking a caller's uid needs CAP_SETUID/CAP_SETGID (root),
// so a supervisor that is not root serves only callers of its own uid.
package netproxy
