/* raise(SIGSEGV) with the default action: the process dies of it, with no
 * fault at all (kill to itself, the default action of a signal that was
 * sent, not forced). */
#include <signal.h>
#include <stdio.h>

int main(void)
{
	printf("raise_sigsegv: raise(SIGSEGV) under SIG_DFL\n");
	fflush(stdout);
	raise(SIGSEGV);
	printf("raise_sigsegv: still alive\n");
	return 1;
}
