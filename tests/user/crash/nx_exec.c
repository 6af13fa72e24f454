/* Crash program: a jump into a page mapped without PROT_EXEC that holds a
 * valid "ret" instruction. If the kernel left the page executable (no NX
 * bit), the call would just return and the program would report it; it
 * must be killed by an instruction-fetch fault instead. */
#include <stdio.h>
#include <sys/mman.h>

int main(void)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("nx_exec: FAIL: mmap failed\n");
		return 1;
	}
	p[0] = 0xc3; /* ret */
	printf("nx_exec: calling code in a non-executable page at %p\n", (void *)p);
	fflush(stdout);
	void (*fn)(void) = (void (*)(void))(void *)p;
	__asm__ volatile("" : "+r"(fn)); /* keep the call: the compiler must not see through it */
	fn();
	printf("nx_exec: FAIL: code ran from a page mapped without PROT_EXEC\n");
	return 0;
}
