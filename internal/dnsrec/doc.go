// Package dnsrec runs a small recording DNS forwarder on loopback, so a run
// can say which names its agent resolved and map each destination address
// back to the name whose answer contained it (issue 36, item 2).
//
// The run gets its own /etc/resolv.conf in its mount namespace (ResolvConf
// gives the content) naming the forwarder; the forwarder passes every query
// to the machine's real resolvers (Nameservers reads them from the host's
// resolv.conf, a systemd-resolved stub such as 127.0.0.53 included) and
// records the question and the answer. DNS is spoken by
// github.com/miekg/dns; nothing here parses the wire format by hand.
//
// # What it needs: port 53
//
// glibc's and Go's resolv.conf parsers take only an address on a
// nameserver line and always use port 53 (whether a newer c-ares takes a
// port was not checked; glibc, behind every getaddrinfo, would not), so
// the forwarder must listen on port 53 of a loopback address of its own:
// Start tries 127.53.0.1, 127.53.0.2, ... (all of 127.0.0.0/8 is routed to
// lo on Linux, so no address has to be added, and 127.53.x.y collides
// neither with systemd-resolved's 127.0.0.53/54 nor with a test's
// 127.0.0.1). Binding port 53 needs CAP_NET_BIND_SERVICE in the network
// namespace's owning user namespace unless
// net.ipv4.ip_unprivileged_port_start is 53 or lower (1024 here, the
// kernel's default). Without it Start returns ErrPort53.
//
// The honest limit without root: the run shares sysgate's network namespace
// (the initial one, owned by the initial user namespace), so a user
// namespace for the run gives it no right to port 53 there. What is left:
//   - the notify backend already performs connect/sendto for the caller
//     (issue 36 item 1): it can deliver a datagram the agent sent to the
//     forwarder's advertised 127.53.0.1:53 to a forwarder listening on a
//     high port (StartAt), recording the address the agent named;
//   - an administrator gives the sysgate binary cap_net_bind_service, or
//     lowers ip_unprivileged_port_start;
//   - a network namespace of the run's own with a user-mode stack (pasta,
//     slirp4netns) for all its egress: not built.
//
// Without one of these a run has no names, and must say so rather than
// report bare addresses as if no lookup happened.
//
// # What the record can and cannot prove
//
// Any local process can query the forwarder; its records carry the client
// address, not the process, so a process outside the run can add names. A
// shared CDN address maps to whichever name last returned it: an address is
// not a name, and two hosts behind one edge read as one. An agent that
// ignores resolv.conf and asks a resolver of its own is a destination
// (item 1), not something this package can see. Names are the agent's data:
// they are kept in miekg/dns presentation form (non-printable bytes escaped
// as \DDD) and what a forwarder keeps is capped (Dropped counts the rest).
//
// /etc/hosts names never reach DNS: HostsNames reads them. glibc consults
// /etc/nsswitch.conf first: a "resolve" (systemd-resolved over varlink) or
// "mdns" source there bypasses resolv.conf entirely, so the run's mount
// namespace also needs NsswitchHosts' rewrite of that file.
package dnsrec
