/* Crash program (hostile user space): a write to kernel memory
 * through the direct map (PAGE_OFFSET 0xffff888000000000 + 1 MiB, where
 * mmlab's image lies; Linux's direct map starts there too).
 * The kernel must kill the process (a page fault or a general-protection
 * fault from user mode); getting past the attempt is a failure. One attempt
 * per program: mmlab (and Linux without a handler) ends the whole process
 * at the first fault, so each hostile action is a crash program of its own
 * (kmem_access_read, _write, _exec, _hlt, _cr3), judged by the user suite,
 * which also checks that every page comes back afterwards. */
#include <stdio.h>

int main(void)
{
	printf("kmem_access_write: %s; the kernel must kill this process\n", "writing the direct map at 0xffff888000100000");
	fflush(stdout);
	volatile unsigned long *k = (volatile unsigned long *)0xffff888000100000ul;
	__asm__ volatile("" : "+r"(k));
	*k = 0x4141414141414141ul;
	printf("kmem_access_write: FAIL: %s did not fault\n", "writing the direct map at 0xffff888000100000");
	return 0;
}
