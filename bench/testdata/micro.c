// A syscall-heavy microbenchmark: N getppid or N one-byte reads of
// /dev/zero in a tight loop, timed in 20 chunks; prints the fastest
// chunk's nanoseconds per call (other load on the machine only ever makes
// a chunk slower). Built static, so the process makes few syscalls
// besides the loop.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc != 3)
		return 2;
	long n = atol(argv[2]);
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	int useRead = !strcmp(argv[1], "read");
	char ch;
	const long chunks = 20;
	double best = 0;
	for (long c = 0; c < chunks; c++) {
		long m = n / chunks;
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < m; i++) {
			if (useRead)
				syscall(SYS_read, fd, &ch, 1);
			else
				syscall(SYS_getppid);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (m ? m : 1);
		if (c == 0 || ns < best)
			best = ns;
	}
	printf("%.1f\n", best);
	return 0;
}
