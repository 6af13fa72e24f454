/* Crash program: a write to a page that was mapped, written and then
 * unmapped: its translation (and any stale TLB entry) must be gone and the
 * kernel must kill the process. */
#include <stdio.h>
#include <sys/mman.h>

int main(void)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("unmapped_write: FAIL: mmap failed\n");
		return 1;
	}
	for (int i = 0; i < 3; i++)
		p[i * 4096] = 1;
	if (munmap(p + 4096, 4096)) {
		printf("unmapped_write: FAIL: munmap failed\n");
		return 1;
	}
	p[0] = p[2 * 4096] = 2; /* the neighbours are still there */
	printf("unmapped_write: writing to the unmapped page %p\n", p + 4096);
	fflush(stdout);
	*(volatile char *)(p + 4096) = 3;
	printf("unmapped_write: FAIL: the write to an unmapped page did not fault\n");
	return 0;
}
