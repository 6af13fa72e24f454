/* Crash program (hostile user space): hlt, a privileged
 * instruction (CPL 0 only): #GP from user mode.
 * The kernel must kill the process (a page fault or a general-protection
 * fault from user mode); getting past the attempt is a failure. One attempt
 * per program: mmlab (and Linux without a handler) ends the whole process
 * at the first fault, so each hostile action is a crash program of its own
 * (kmem_access_read, _write, _exec, _hlt, _cr3), judged by the user suite,
 * which also checks that every page comes back afterwards. */
#include <stdio.h>

int main(void)
{
	printf("kmem_access_hlt: %s; the kernel must kill this process\n", "running hlt");
	fflush(stdout);
	__asm__ volatile("hlt");
	printf("kmem_access_hlt: FAIL: %s did not fault\n", "running hlt");
	return 0;
}
