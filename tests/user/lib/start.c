/* Process start and end for the mmlab user C library: reads argc, argv,
 * envp and the auxiliary vector off the initial stack, calls main, and ends
 * the process through exit_group after the atexit handlers ran and stdio
 * was flushed. There is one thread, so errno is a plain global. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "syscall.h"

int errno;
char **environ;
unsigned long __mmlab_page_size = 4096; /* AT_PAGESZ when the kernel gives it */

#define AT_NULL 0
#define AT_PAGESZ 6

extern int main(int argc, char **argv, char **envp);
__attribute__((noreturn)) void __mmlab_start(long *sp);

#define ATEXIT_MAX 32
static void (*atexit_fns[ATEXIT_MAX])(void);
static int atexit_count;

void __mmlab_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	char **p = envp;
	while (*p)
		p++;
	for (unsigned long *auxv = (unsigned long *)(p + 1); auxv[0] != AT_NULL; auxv += 2) {
		if (auxv[0] == AT_PAGESZ && auxv[1])
			__mmlab_page_size = auxv[1];
	}
	environ = envp;
	exit(main(argc, argv, envp));
}

int atexit(void (*fn)(void))
{
	if (atexit_count == ATEXIT_MAX)
		return -1;
	atexit_fns[atexit_count++] = fn;
	return 0;
}

void exit(int status)
{
	while (atexit_count > 0)
		atexit_fns[--atexit_count]();
	__mmlab_stdio_flush_all();
	_exit(status);
}

void _exit(int status)
{
	for (;;)
		raw_syscall1(SYS_exit_group, status);
}

void _Exit(int status)
{
	_exit(status);
}

/* No signals on mmlab: abort ends the process with 128 + SIGABRT, the status
 * a shell shows for an aborted program. stdout is flushed first so that the
 * diagnostics before the abort are not lost. */
void abort(void)
{
	__mmlab_stdio_flush_all();
	_exit(134);
}

char *getenv(const char *name)
{
	size_t n = 0;
	while (name[n])
		n++;
	for (char **e = environ; e && *e; e++) {
		size_t i = 0;
		while (i < n && (*e)[i] == name[i])
			i++;
		if (i == n && (*e)[n] == '=')
			return *e + n + 1;
	}
	return NULL;
}
