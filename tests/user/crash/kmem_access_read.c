/* Crash program (hostile user space): a read of kernel memory:
 * mmlab's kernel text at 0xffffffff80110000 (on Linux an address in its
 * kernel text range, mapped for the kernel only or not at all).
 * The kernel must kill the process (a page fault or a general-protection
 * fault from user mode); getting past the attempt is a failure. One attempt
 * per program: mmlab (and Linux without a handler) ends the whole process
 * at the first fault, so each hostile action is a crash program of its own
 * (kmem_access_read, _write, _exec, _hlt, _cr3), judged by the user suite,
 * which also checks that every page comes back afterwards. */
#include <stdio.h>

int main(void)
{
	printf("kmem_access_read: %s; the kernel must kill this process\n", "reading kernel text at 0xffffffff80110000");
	fflush(stdout);
	volatile unsigned long *k = (volatile unsigned long *)0xffffffff80110000ul;
	__asm__ volatile("" : "+r"(k));
	unsigned long v = *k;
	printf("kmem_access_read: read %#lx\n", v);
	printf("kmem_access_read: FAIL: %s did not fault\n", "reading kernel text at 0xffffffff80110000");
	return 0;
}
