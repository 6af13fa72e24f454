/* Crash program: a write to a page made read-only with mprotect (after a
 * write proved it was writable). The kernel must kill the process; getting
 * past the write is a failure. */
#include <stdio.h>
#include <sys/mman.h>

int main(void)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("readonly_write: FAIL: mmap failed\n");
		return 1;
	}
	p[0] = 1;
	if (mprotect(p, 4096, PROT_READ)) {
		printf("readonly_write: FAIL: mprotect failed\n");
		return 1;
	}
	printf("readonly_write: page %p is read-only (reads %d); writing to it\n", p, p[0]);
	fflush(stdout);
	*(volatile char *)p = 2;
	printf("readonly_write: FAIL: the write to a PROT_READ page did not fault\n");
	return 0;
}
