// A syscall-heavy microbenchmark: N getppid or N one-byte reads of
// /dev/zero in a tight loop; prints the loop's nanoseconds per call.
// Built static, so the process makes few syscalls besides the loop.
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
	char c;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		if (useRead)
			syscall(SYS_read, fd, &c, 1);
		else
			syscall(SYS_getppid);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%.1f\n", n ? ns / n : 0);
	return 0;
}
