/* Crash program (hostile user space): a jump into kernel text
 * (0xffffffff80110000): an instruction fetch from a supervisor page.
 * The kernel must kill the process (a page fault or a general-protection
 * fault from user mode); getting past the attempt is a failure. One attempt
 * per program: mmlab (and Linux without a handler) ends the whole process
 * at the first fault, so each hostile action is a crash program of its own
 * (kmem_access_read, _write, _exec, _hlt, _cr3), judged by the user suite,
 * which also checks that every page comes back afterwards. */
#include <stdio.h>

int main(void)
{
	printf("kmem_access_exec: %s; the kernel must kill this process\n", "calling kernel text at 0xffffffff80110000");
	fflush(stdout);
	void (*fn)(void) = (void (*)(void))0xffffffff80110000ul;
	__asm__ volatile("" : "+r"(fn));
	fn();
	printf("kmem_access_exec: FAIL: %s did not fault\n", "calling kernel text at 0xffffffff80110000");
	return 0;
}
