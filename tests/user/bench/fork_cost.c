/* Benchmark: what fork costs with memory behind it. For each size (MiB of
 * touched private anonymous memory, 4 KiB pages: MADV_NOHUGEPAGE), ROUNDS
 * times: fork, the child _exit(0)s at once, the parent wait4s it; the
 * figure is the time from fork to wait4's return, per round (the page
 * tables copied, every page shared and write-protected, then the child's
 * teardown). Then one fork whose child writes one byte in each of
 * COW_PAGES pages, each a copy-on-write fault, timed inside the child
 * (the copy, the new page's mapping, the old page's reference dropped).
 * Under -icount shift=0 every ns is one instruction. Options after
 * --bench: --mib 1,64,1024 (sizes larger than half the machine's RAM are
 * skipped, with a line saying so), --rounds N, --cow-pages N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int fork_exit_wait(long long *ns)
{
	fflush(stdout);
	long long t0 = now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork_cost: fork");
		return -1;
	}
	if (pid == 0)
		_exit(0);
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fork_cost: wait4: the child did not exit with 0 (status %#x)\n", status);
		return -1;
	}
	*ns += now_ns() - t0;
	return 0;
}

/* One fork; the child writes a byte in each of pages pages of p (shared
 * copy-on-write) and prints the time per write fault. */
static int cow_faults(char *p, long pages)
{
	fflush(stdout); /* or the child's exit writes the parent's lines again */
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork_cost: fork");
		return -1;
	}
	if (pid == 0) {
		long long t0 = now_ns();
		for (long i = 0; i < pages; i++)
			p[i * PAGE_4K] = (char)(i + 1);
		long long t1 = now_ns();
		printf("bench: fork_cost copy-on-write fault (%ld pages): %.1f ns\n", pages,
		       (double)(t1 - t0) / (double)pages);
		fflush(stdout);
		_exit(0);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *sizes = "1,64,1024";
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--mib"))
			sizes = argv[i + 1];
	long rounds = arg_long(argc, argv, "--rounds", 8);
	long cow_pages = arg_long(argc, argv, "--cow-pages", 1024);
	struct sysinfo si;
	unsigned long long ram = sysinfo(&si) ? 0 : (unsigned long long)si.totalram * si.mem_unit;
	char list[128];
	snprintf(list, sizeof(list), "%s", sizes);
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		long mib = atol(tok);
		size_t len = (size_t)mib << 20;
		if (mib <= 0 || (ram && len > ram / 2)) {
			printf("bench: fork_cost %ld MiB: skipped (the machine has %llu MiB)\n", mib, ram >> 20);
			continue;
		}
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("fork_cost: mmap");
			return 1;
		}
		madvise(p, len, MADV_NOHUGEPAGE); /* 4 KiB pages, as on every kernel compared */
		touch_pages(p, len, 1);
		long long ns = 0;
		for (long r = 0; r < rounds; r++)
			if (fork_exit_wait(&ns))
				return 1;
		printf("bench: fork_cost fork+exit+wait4 with %ld MiB touched: %.0f ns\n", mib,
		       (double)ns / (double)rounds);
		if (mib == 64 && cow_faults(p, cow_pages < (long)(len / PAGE_4K) ? cow_pages : (long)(len / PAGE_4K)))
			return 1;
		munmap(p, len);
	}
	fflush(stdout);
	return 0;
}
