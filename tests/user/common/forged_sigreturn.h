/* The crash programs that hand rt_sigreturn a forged frame: a SIGUSR1
 * handler edits the frame the kernel built (its ucontext) with forge(),
 * and returns through the C library's restorer into rt_sigreturn, which
 * must refuse the frame and send SIGSEGV (Linux's restore_sigcontext and
 * fpu__restore_sig fail, or its IRET faults): with no SIGSEGV handler,
 * the process dies of it. Living past the raise is the failure. */
#ifndef MMLAB_USER_FORGED_SIGRETURN_H
#define MMLAB_USER_FORGED_SIGRETURN_H


#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static void forge(ucontext_t *uc);

static void forging_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si;
	forge(uc);
}

static int run_forged_sigreturn(const char *what)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forging_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 2;
	printf("%s: rt_sigreturn with a forged frame must end in SIGSEGV\n", what);
	fflush(stdout);
	raise(SIGUSR1);
	printf("%s: still alive after the forged rt_sigreturn\n", what);
	return 1;
}

#endif
