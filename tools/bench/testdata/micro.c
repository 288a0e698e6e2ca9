// A syscall-heavy microbenchmark: N getppid, N one-byte reads of
// /dev/zero, N openat(FILE, O_RDONLY) + close pairs or N TCP connects to
// ADDR:PORT in a tight loop, timed in 20 chunks; prints the fastest
// chunk's nanoseconds per call (per pair for openat, per connect for
// connect; other load on the machine only ever makes a chunk slower).
// Built static, so the process makes few syscalls besides the loop. The
// count is the last argument:
//
//	micro getppid|read N
//	micro openat FILE N
//	micro connect IPV4ADDR PORT N
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { GETPPID, READ, OPENAT, CONNECT };

// connectOnce opens a TCP socket, connects it to to and closes it with a
// reset (SO_LINGER 0), so that no TIME_WAIT socket holds a local port and
// a long loop never runs out of them. The listener accepts and closes.
static int connectOnce(const struct sockaddr_in *to) {
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	int rc = connect(s, (const struct sockaddr *)to, sizeof *to);
	struct linger l = {1, 0};
	setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(s);
	return rc;
}

int main(int argc, char **argv) {
	if (argc < 3)
		return 2;
	int mode = GETPPID;
	const char *file = NULL;
	if (!strcmp(argv[1], "read"))
		mode = READ;
	else if (!strcmp(argv[1], "openat"))
		mode = OPENAT;
	else if (!strcmp(argv[1], "connect"))
		mode = CONNECT;
	else if (strcmp(argv[1], "getppid"))
		return 2;
	if (argc != (mode == OPENAT ? 4 : mode == CONNECT ? 5 : 3))
		return 2;
	if (mode == OPENAT)
		file = argv[2];
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(atoi(argc == 5 ? argv[3] : "0"))};
	if (mode == CONNECT && inet_pton(AF_INET, argv[2], &to.sin_addr) != 1)
		return 2;
	long n = atol(argv[argc - 1]);
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	char ch;
	const long chunks = 20;
	double best = 0;
	for (long c = 0; c < chunks; c++) {
		long m = n / chunks;
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < m; i++) {
			switch (mode) {
			case READ:
				syscall(SYS_read, fd, &ch, 1);
				break;
			case OPENAT: {
				// Read-only, as openat(read) in a baseline allows: the
				// access bits and O_CREAT/O_TRUNC/O_TMPFILE all clear.
				long f = syscall(SYS_openat, AT_FDCWD, file, O_RDONLY);
				if (f < 0)
					return 1;
				syscall(SYS_close, f);
				break;
			}
			case CONNECT:
				if (connectOnce(&to) < 0)
					return 1;
				break;
			default:
				syscall(SYS_getppid);
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (m ? m : 1);
		if (c == 0 || ns < best)
			best = ns;
	}
	printf("%.1f\n", best);
	return 0;
}
