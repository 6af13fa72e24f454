/* Crash program (hostile user space): a read of CR3 (the page-
 * table root), a privileged instruction: #GP from user mode.
 * The kernel must kill the process (a page fault or a general-protection
 * fault from user mode); getting past the attempt is a failure. One attempt
 * per program: mmlab (and Linux without a handler) ends the whole process
 * at the first fault, so each hostile action is a crash program of its own
 * (kmem_access_read, _write, _exec, _hlt, _cr3), judged by the user suite,
 * which also checks that every page comes back afterwards. */
#include <stdio.h>

int main(void)
{
	printf("kmem_access_cr3: %s; the kernel must kill this process\n", "reading CR3");
	fflush(stdout);
	unsigned long cr3;
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	printf("kmem_access_cr3: CR3 = %#lx\n", cr3);
	printf("kmem_access_cr3: FAIL: %s did not fault\n", "reading CR3");
	return 0;
}
