/* Truncating a file that two processes map shared: the one that did not
 * truncate loses the pages past the new end (a touch there is SIGBUS,
 * si_code BUS_ADRERR, si_addr the address touched, caught by a handler
 * that leaves with siglongjmp) and keeps those before it, the last one's
 * tail past the end reading zeros; a hole punched with fallocate and with
 * madvise(MADV_REMOVE) reads back as zeros through every shared mapping,
 * shared anonymous memory's too; MADV_REMOVE refuses private and
 * read-only mappings as Linux does. The pages count in the mapping's Rss
 * (smaps) and in RssShmem for a tmpfs file (a tmpfs page is shmem on
 * Linux; RssFile for another file system), and in /proc/meminfo's Mapped.
 *
 * The file is in the first tmpfs of /dev/shm and /tmp, else in /tmp
 * whatever it is (then RssFile is the field). Mapped is system-wide: on
 * Linux other processes move it too, so it is checked exactly on mmlab
 * only; the smaps Rss of the mapping is exact on both kernels. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sched.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define NPAGES 64 /* the file and the mapping */
#define KEEP 40   /* pages left (the last in part) by the truncate */

static long page;
/* How far /proc/self/status's RSS counts may be from the truth: Linux up
 * to 6.1 keeps a thread's changes in the thread and folds them into the
 * mm every 64 faults or so (SPLIT_RSS_COUNTING, proc(5)), so a count read
 * may miss the last window's faults and the next read may gain them all:
 * two windows. mmlab's counts, and Linux's since 6.2 (per-CPU counters),
 * are exact. */
static long rss_lag_kb(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (on_mmlab() || uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 2) ? 0 : 2 * 64 * page / 1024;
}

static char pattern(long i) { return (char)('A' + i % 26); }

/* The two processes take turns through a word of shared memory: each
 * sets it to its step and waits (yielding) until the other moved it on
 * (a wait on a condition, not on time). */
static void step_and_wait(volatile int *sync, int step)
{
	__atomic_store_n(sync, step, __ATOMIC_RELEASE);
	while (__atomic_load_n(sync, __ATOMIC_ACQUIRE) <= step)
		sched_yield();
}

/* The child: every page read, then, once the parent truncated, the pages
 * before the end still read and those past it SIGBUS. Its exit status
 * has one bit per check that failed (the parent reports them). */
static int child(char *map, volatile int *sync)
{
	int bad = 0;
	for (long i = 0; i < NPAGES; i++)
		bad |= map[i * page] != pattern(i) ? 1 : 0;
	bad |= smaps_kb(map, "Rss") != NPAGES * page / 1024 ? 2 : 0;
	step_and_wait(sync, 1);
	char v;
	bad |= !read_byte(map + (KEEP - 1) * page, &v) || v != pattern(KEEP - 1) ? 4 : 0;
	bad |= !sigbus_at(map + KEEP * page) ? 8 : 0;
	bad |= !sigbus_at(map + (NPAGES - 1) * page + 7) ? 16 : 0;
	/* The truncate unmapped the pages past the end from this process too. */
	bad |= smaps_kb(map, "Rss") != KEEP * page / 1024 ? 32 : 0;
	return bad;
}

/* Mapped checked exactly on mmlab, where nothing but this test maps or
 * unmaps file pages while it runs; beside a difference, what this
 * program's own text (a file mapping too) had mapped then and at the
 * start, so a report says whether the text moved. A macro, so that the
 * report names the caller's line. */
static long text_rss0;
static void note_text(void)
{
	note("this program's text: Rss %ld kB, %ld kB at the first count", smaps_kb((const void *)note_text, "Rss"),
	     text_rss0);
}
#define CHECK_MAPPED(mapped0, want_kb)                                            \
	do {                                                                      \
		if (!CHECK_CMP(meminfo_kb("Mapped") - (mapped0), ==, (want_kb))) \
			note_text();                                              \
	} while (0)

int main(void)
{
	test_begin("truncate_sigbus");
	page = sysconf(_SC_PAGESIZE);
	bool tmpfs;
	const char *dir = tmpfs_dir(&tmpfs);
	const char *rss_field = tmpfs ? "RssShmem" : "RssFile";
	note("file in %s (%s): its pages count in %s", dir, tmpfs ? "tmpfs" : "not tmpfs", rss_field);
	long lag = rss_lag_kb();
	note("RssShmem/RssFile checked within %ld kB", lag);
	CHECK(sigbus_catch());

	char path[64];
	snprintf(path, sizeof(path), "%s/truncate_sigbus.%d", dir, (int)getpid());
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (!CHECK(fd >= 0))
		return test_end();
	int rofd = open(path, O_RDONLY);
	CHECK(rofd >= 0);
	unlink(path);
	static char buf[1 << 16];
	for (long i = 0; i < NPAGES; i++) {
		memset(buf, pattern(i), (size_t)page);
		CHECK_CMP(pwrite(fd, buf, (size_t)page, i * page), ==, page);
	}
	/* The word the processes take turns with, mapped (and so counted)
	 * before the counts are taken. */
	volatile int *sync = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(sync != MAP_FAILED))
		return test_end();
	*sync = 0;
	text_rss0 = smaps_kb((const void *)note_text, "Rss");
	long mapped0 = meminfo_kb("Mapped"), rss0 = status_kb(rss_field);
	char *map = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(map != MAP_FAILED))
		return test_end();
	long sum = 0;
	for (long i = 0; i < NPAGES; i++)
		sum += map[i * page] == pattern(i);
	CHECK_CMP(sum, ==, NPAGES);
	CHECK_CMP(smaps_kb(map, "Rss"), ==, NPAGES * page / 1024);
	long rss1 = status_kb(rss_field);
	CHECK_CMP(rss1 - rss0, >=, NPAGES * page / 1024 - lag);
	CHECK_CMP(rss1 - rss0, <=, NPAGES * page / 1024 + lag);
	if (on_mmlab())
		CHECK_MAPPED(mapped0, NPAGES * page / 1024);

	pid_t pid = fork();
	if (pid == 0)
		_exit(child(map, sync));
	CHECK(pid > 0);
	/* The child's step 1: it read every page. */
	while (pid > 0 && __atomic_load_n(sync, __ATOMIC_ACQUIRE) < 1)
		sched_yield();
	/* Both map every page: Mapped counts each page once. */
	if (on_mmlab())
		CHECK_MAPPED(mapped0, NPAGES * page / 1024);
	/* The new end is inside page KEEP - 1. */
	long end = KEEP * page - 1000;
	long before = status_kb(rss_field);
	CHECK(ftruncate(fd, end) == 0);
	long after = status_kb(rss_field);
	__atomic_store_n(sync, 2, __ATOMIC_RELEASE); /* the child's turn */
	int status;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the child read before the end, got SIGBUS past it (exit status %#x: bits of checks failed)",
	       status);
	/* This process lost the pages past the end too. */
	CHECK_CMP(smaps_kb(map, "Rss"), ==, KEEP * page / 1024);
	CHECK_CMP(before - after, >=, (NPAGES - KEEP) * page / 1024 - lag);
	CHECK_CMP(before - after, <=, (NPAGES - KEEP) * page / 1024 + lag);
	if (on_mmlab())
		CHECK_MAPPED(mapped0, KEEP * page / 1024);
	CHECK(sigbus_at(map + KEEP * page));
	CHECK(sigbus_at(map + (NPAGES - 2) * page + 123));
	char v;
	CHECK(read_byte(map + end - 1, &v) && v == pattern(KEEP - 1));
	CHECK(read_byte(map + end, &v) && v == 0); /* past the end in the last page */
	CHECK(read_byte(map, &v) && v == pattern(0));
	/* Grown again: the lost pages come back as zeros. */
	CHECK(ftruncate(fd, NPAGES * page) == 0);
	CHECK(read_byte(map + KEEP * page, &v) && v == 0);
	CHECK(read_byte(map + end, &v) && v == 0);

	/* A hole punched: fallocate, then MADV_REMOVE through the mapping; a
	 * second mapping, of a read-only descriptor, sees both. */
	char *ro = mmap(NULL, NPAGES * page, PROT_READ, MAP_SHARED, rofd, 0);
	CHECK(ro != MAP_FAILED);
	CHECK(ro[2 * page] == pattern(2) && ro[5 * page] == pattern(5));
	CHECK(syscall(SYS_fallocate, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * page, 2 * page) == 0);
	CHECK(all_bytes(ro + 2 * page, 2 * page, 0));
	CHECK(all_bytes(map + 2 * page, 2 * page, 0));
	CHECK(map[page] == pattern(1) && map[4 * page] == pattern(4));
	CHECK(madvise(map + 5 * page, page, MADV_REMOVE) == 0);
	CHECK(all_bytes(ro + 5 * page, page, 0));
	CHECK_CMP(pread(fd, buf, (size_t)page, 5 * page), ==, page);
	CHECK(all_bytes(buf, (size_t)page, 0));
	CHECK(ro[6 * page] == pattern(6));
	/* Linux's order: a mapping that is not shared and writable: EACCES
	 * (6.1 asks VM_WRITE, so a PROT_READ mapping of a writable descriptor
	 * is refused there and on mmlab; Linux 6.7 asks VM_MAYWRITE
	 * (vma_is_shared_maywrite) and allows it. A read-only descriptor's
	 * mapping has neither: EACCES everywhere). */
	CHECK_ERRNO(madvise(ro, page, MADV_REMOVE), EACCES);
	char *priv = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(priv != MAP_FAILED);
	CHECK_ERRNO(madvise(priv, page, MADV_REMOVE), EACCES);
	char *anon = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(anon != MAP_FAILED);
	CHECK_ERRNO(madvise(anon, page, MADV_REMOVE), EINVAL); /* no file */
	/* Locked pages stay: EINVAL, the first of Linux's checks. */
	char why[128];
	if (mlock_allowed((size_t)page, why, sizeof(why))) {
		CHECK(mlock(map + 7 * page, (size_t)page) == 0);
		CHECK_ERRNO(madvise(map + 7 * page, page, MADV_REMOVE), EINVAL);
		CHECK(munlock(map + 7 * page, (size_t)page) == 0);
		CHECK(map[7 * page] == pattern(7));
	} else {
		check_skip("MADV_REMOVE of a locked range: %s", why);
	}
	/* Shared anonymous memory: a hole in its (unnamed) file. */
	char *shm = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED);
	memset(shm, 'S', 4 * page);
	CHECK(madvise(shm + page, 2 * page, MADV_REMOVE) == 0);
	CHECK(all_bytes(shm + page, 2 * page, 0));
	CHECK(shm[0] == 'S' && shm[3 * page] == 'S');

	CHECK(munmap(map, NPAGES * page) == 0 && munmap(ro, NPAGES * page) == 0);
	CHECK(munmap(priv, page) == 0 && munmap(anon, 4 * page) == 0 && munmap(shm, 4 * page) == 0);
	if (on_mmlab())
		CHECK_MAPPED(mapped0, 0);
	CHECK(munmap((void *)sync, page) == 0);
	close(rofd);
	close(fd);
	return test_end();
}
