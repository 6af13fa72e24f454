/* A fault while SIGSEGV is blocked, with a handler installed: the signal
 * cannot be blocked away (Linux's force_sig_info_to_task unblocks it and
 * resets the handler), so the process dies of SIGSEGV and the handler
 * never runs. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void handler(int sig)
{
	(void)sig;
	static const char msg[] = "sigsegv_blocked: the handler ran\n";
	write(1, msg, sizeof(msg) - 1);
	_exit(1);
}

int main(void)
{
	signal(SIGSEGV, handler);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGSEGV);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("sigsegv_blocked: a write to address 0 with SIGSEGV blocked\n");
	fflush(stdout);
	volatile int *null = 0;
	__asm__ volatile("" : "+r"(null)); /* a real store, not a compiler trap */
	*null = 1;
	printf("sigsegv_blocked: still alive\n");
	return 1;
}
