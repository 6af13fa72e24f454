/* For the kernel's terminal tests (tests/tty_test.c): a process group the
 * kernel can make a terminal's foreground group and stop with ^Z.
 *
 *   tty_fg ADDRESS
 *
 * It maps a page at ADDRESS (MAP_FIXED_NOREPLACE) and forks a child that
 * moves to a process group of its own and waits in pause(). This process
 * stays in the same session, in another group, so the child's group is
 * not orphaned and a stop signal stops it (an orphaned group's SIGTSTP
 * is discarded, as Linux's). It writes the child's pid (its group's id)
 * in the page's first word, waits for the child with WUNTRACED, and
 * exits with 100 + the signal that stopped it (the child is then killed),
 * or 1 if it ended instead. Nothing here depends on time. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: tty_fg ADDRESS\n");
		return 2;
	}
	unsigned long addr = strtoul(argv[1], NULL, 0);
	volatile int *flag = mmap((void *)addr, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (flag != (volatile int *)addr) {
		printf("tty_fg: cannot map the flag page at %#lx\n", addr);
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	*flag = pid;
	int status;
	if (waitpid(pid, &status, WUNTRACED) != pid)
		return 2;
	if (!WIFSTOPPED(status))
		return 1;
	int sig = WSTOPSIG(status);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 100 + sig;
}
