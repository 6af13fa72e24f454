/* Crash program: a write to address 0. Nothing is mapped there (Linux
 * keeps the first 64 KiB unmappable, mmlab maps nothing below the
 * program), so the kernel must kill the process; returning from main is a
 * failure of the test. */
#include <stdio.h>

int main(void)
{
	printf("null_write: writing to address 0; the kernel must kill this process\n");
	fflush(stdout);
	volatile int *null = 0;
	__asm__ volatile("" : "+r"(null)); /* a real store, not a compiler trap */
	*null = 42;
	printf("null_write: FAIL: the write to address 0 did not fault\n");
	return 0;
}
