/* What /proc/self/smaps says of private memory around fork, as Linux does:
 * 64 written pages are Private_Dirty in the parent alone; after fork they
 * are Shared_Dirty in both with Pss halved; the child's writes to 16 of
 * them make those Private_Dirty in the child (its copies) and leave the
 * rest shared; once the child is gone the parent's pages are private
 * again. Pages are 4 KiB (MADV_NOHUGEPAGE). A shared anonymous page
 * orders the two (no pipes needed). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define PAGES 64
#define WRITTEN 16

int main(void)
{
	test_begin("fork_smaps");
	size_t len = PAGES * PAGE_4K;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		test_skip("mmap: %s", errno_name(errno));
	madvise(p, len, MADV_NOHUGEPAGE);
	touch_pages(p, len, 1);
	long kb = (long)(len >> 10);
	CHECK_CMP(smaps_kb(p, "Rss"), ==, kb);
	CHECK_CMP(smaps_kb(p, "Private_Dirty"), ==, kb);
	CHECK_CMP(smaps_kb(p, "Pss"), ==, kb);
	volatile int *step = mmap(NULL, PAGE_4K, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (step == MAP_FAILED)
		test_skip("MAP_SHARED|MAP_ANONYMOUS: %s", errno_name(errno));
	*step = 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		test_skip("fork: %s", errno_name(errno));
	if (pid == 0) {
		/* Shared by two: half each. */
		int ok = smaps_kb(p, "Shared_Dirty") == kb && smaps_kb(p, "Pss") == kb / 2 &&
			 smaps_kb(p, "Private_Dirty") == 0;
		memset(p, 2, WRITTEN * PAGE_4K); /* WRITTEN copy-on-write faults */
		long own = (long)(WRITTEN * PAGE_4K >> 10);
		ok = ok && smaps_kb(p, "Private_Dirty") == own && smaps_kb(p, "Shared_Dirty") == kb - own &&
		     smaps_kb(p, "Pss") == own + (kb - own) / 2 && smaps_kb(p, "Rss") == kb;
		__atomic_store_n(step, 1, __ATOMIC_SEQ_CST); /* the parent looks now */
		while (__atomic_load_n(step, __ATOMIC_SEQ_CST) != 2)
			usleep(1000);
		_exit(ok ? 0 : 1);
	}
	while (__atomic_load_n(step, __ATOMIC_SEQ_CST) != 1)
		usleep(1000);
	/* The child has its 16 copies: 48 pages still shared. */
	long own = (long)(WRITTEN * PAGE_4K >> 10);
	CHECK_CMP(smaps_kb(p, "Private_Dirty"), ==, own);
	CHECK_CMP(smaps_kb(p, "Shared_Dirty"), ==, kb - own);
	CHECK_CMP(smaps_kb(p, "Pss"), ==, own + (kb - own) / 2);
	CHECK_CMP(smaps_kb(p, "Rss"), ==, kb);
	CHECK(p[0] == 1 && p[WRITTEN * PAGE_4K] == 1); /* the child's writes are its own */
	__atomic_store_n(step, 2, __ATOMIC_SEQ_CST);
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's view of smaps (status %#x)", status);
	/* Alone again. */
	CHECK_CMP(smaps_kb(p, "Private_Dirty"), ==, kb);
	CHECK_CMP(smaps_kb(p, "Shared_Dirty"), ==, 0);
	CHECK_CMP(smaps_kb(p, "Pss"), ==, kb);
	munmap(p, len);
	munmap((void *)step, PAGE_4K);
	return test_end();
}
