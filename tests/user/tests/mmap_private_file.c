/* A MAP_PRIVATE mapping of a file, as Linux serves it: a page the
 * process has only read is the file's own page (the page cache's), so it
 * shows what pwrite(2) puts in the file afterwards, and a hole punched
 * there reads zeros; the process's first write to a page gives it a copy
 * of its own, which the file's later changes no longer reach and the
 * file never sees; a fork's child sees the same; a truncate takes both
 * kinds of page past the new end (SIGBUS there).
 *
 * The figures, exact on both kernels: the mapping's smaps Rss is every
 * page mapped, Anonymous the pages written (the copies); every page is
 * mapped by this process alone (Private_*, no Shared_*); pagemap marks
 * the pages only read PM_FILE and the copies not; numa_maps names the
 * file and counts the copies in anon=; mincore says a page
 * the file has is in core before any is mapped, and none past the end
 * after the truncate. Where the kernels
 * differ: Linux counts a page-cache page that write(2) dirtied in
 * Private_Dirty (PageDirty), mmlab has no such page flag and counts by
 * the PTE's dirty bit (the copies only); Linux's fault-around
 * (fault_around_bytes, 64 KiB by default) may map pages not touched yet,
 * so before every page is read Rss is only bounded; /proc/self/status's
 * RssShmem (a tmpfs file's pages) is checked exactly on mmlab only (Linux
 * up to 6.1 keeps per-thread RSS caches). */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define NPAGES 16
#define NWRITTEN 4 /* pages 0..3 written through the mapping */

static long page;

static char pattern(long i) { return (char)('a' + i % 26); }

/* The pagemap entry of the page at p. */
static uint64_t pagemap_entry(const void *p)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd >= 0) {
		if (pread(fd, &e, sizeof(e), (off_t)((uintptr_t)p / (uintptr_t)page * sizeof(e))) != sizeof(e))
			e = 0;
		close(fd);
	}
	return e;
}

/* How many of the first n pages mincore's vector says are in core. */
static long count_in_core(const unsigned char *vec, long n)
{
	long c = 0;
	for (long i = 0; i < n; i++)
		c += vec[i] & 1;
	return c;
}

/* One byte of the file by pwrite. */
static bool file_put(int fd, long off, char c) { return pwrite(fd, &c, 1, off) == 1; }
static char file_get(int fd, long off)
{
	char c = 0;
	return pread(fd, &c, 1, off) == 1 ? c : 0;
}

/* The child after fork: it sees the pages its parent only read as the
 * file is now (the parent changed page 5 before the fork), and the
 * parent's copies as the parent wrote them; its own write to page 5
 * copies it for itself. A bit per failed check. */
static int child(char *map, int fd)
{
	int bad = 0;
	bad |= map[5 * page] != 'F' ? 1 : 0;
	bad |= map[0] != 'W' ? 2 : 0;
	map[5 * page + 1] = 'C';
	bad |= map[5 * page] != 'F' || file_get(fd, 5 * page + 1) != pattern(5) ? 4 : 0;
	bad |= (pagemap_entry(map + 5 * page) & PM_FILE) ? 8 : 0;
	return bad;
}

int main(void)
{
	test_begin("mmap_private_file");
	page = sysconf(_SC_PAGESIZE);
	bool tmpfs;
	const char *dir = tmpfs_dir(&tmpfs);
	note("file in %s (%s)", dir, tmpfs ? "tmpfs" : "not tmpfs");
	CHECK(sigbus_catch());
	char path[64];
	snprintf(path, sizeof(path), "%s/mmap_private_file.%d", dir, (int)getpid());
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (!CHECK(fd >= 0))
		return test_end();
	unlink(path);
	static char buf[1 << 16];
	for (long i = 0; i < NPAGES; i++) {
		memset(buf, pattern(i), (size_t)page);
		CHECK_CMP(pwrite(fd, buf, (size_t)page, i * page), ==, page);
	}
	long shmem0 = status_kb("RssShmem"), anon0 = status_kb("RssAnon");
	char *map = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (!CHECK(map != MAP_FAILED))
		return test_end();

	/* Nothing mapped yet, every page in the file's page cache: mincore
	 * says each is in core (Linux's mincore_page). */
	unsigned char vec[NPAGES];
	CHECK(mincore(map, NPAGES * page, vec) == 0 && count_in_core(vec, NPAGES) == NPAGES);

	/* Read: the file's page; the file's change shows. */
	CHECK(map[0] == pattern(0));
	long rss = smaps_kb(map, "Rss");
	note("Rss after one read: %ld kB (fault-around may map more)", rss);
	CHECK_CMP(rss, >=, page / 1024);
	CHECK_CMP(rss, <=, NPAGES * page / 1024);
	CHECK_CMP(smaps_kb(map, "Anonymous"), ==, 0);
	CHECK(pagemap_entry(map) & PM_FILE);
	CHECK(file_put(fd, 10, 'P'));
	CHECK(map[10] == 'P');

	/* The first write copies: the file keeps its byte, and its later
	 * changes no longer show. */
	map[20] = 'W';
	map[0] = 'W';
	CHECK(file_get(fd, 20) == pattern(0));
	CHECK(file_put(fd, 10, 'Q'));
	CHECK(map[10] == 'P');
	CHECK(!(pagemap_entry(map) & PM_FILE) && (pagemap_entry(map) & PM_PRESENT));
	CHECK_CMP(smaps_kb(map, "Anonymous"), ==, page / 1024);

	/* Every page read, pages 0..3 written: Rss all of them, Anonymous the
	 * copies, every page this process's alone. */
	for (long i = 1; i < NWRITTEN; i++)
		map[i * page] = 'W';
	long sum = 0;
	for (long i = NWRITTEN; i < NPAGES; i++)
		sum += map[i * page] == pattern(i);
	CHECK_CMP(sum, ==, NPAGES - NWRITTEN);
	CHECK_CMP(smaps_kb(map, "Rss"), ==, NPAGES * page / 1024);
	CHECK_CMP(smaps_kb(map, "Anonymous"), ==, NWRITTEN * page / 1024);
	CHECK_CMP(smaps_kb(map, "Shared_Clean") + smaps_kb(map, "Shared_Dirty"), ==, 0);
	long pclean = smaps_kb(map, "Private_Clean"), pdirty = smaps_kb(map, "Private_Dirty");
	note("Private_Clean %ld kB, Private_Dirty %ld kB", pclean, pdirty);
	CHECK_CMP(pclean + pdirty, ==, NPAGES * page / 1024);
	if (on_mmlab()) { /* by the PTE's dirty bit: the copies */
		CHECK_CMP(pdirty, ==, NWRITTEN * page / 1024);
		CHECK_CMP(status_kb("RssShmem") - shmem0, ==, (NPAGES - NWRITTEN) * page / 1024);
		CHECK_CMP(status_kb("RssAnon") - anon0, >=, NWRITTEN * page / 1024);
	} else { /* Linux adds the page-cache pages write(2) dirtied */
		CHECK_CMP(pdirty, >=, NWRITTEN * page / 1024);
	}
	CHECK(pagemap_entry(map + 5 * page) & PM_FILE);
	CHECK(!(pagemap_entry(map + 2 * page) & PM_FILE));
	/* numa_maps: the file named, the copies in anon=. */
	char line[512];
	if (numa_maps_line(map, line, sizeof(line))) {
		note("numa_maps: %s", line);
		const char *anon = strstr(line, " anon=");
		CHECKF(strstr(line, " file=") != NULL, "numa_maps names the file: %s", line);
		CHECKF(anon && atol(anon + 6) == NWRITTEN, "numa_maps anon=%d: %s", NWRITTEN, line);
	} else {
		check_skip("no /proc/self/numa_maps line (a kernel without NUMA?)");
	}

	/* mprotect read-only and back: the page only read is still the
	 * file's (a write copies it), the file untouched. */
	CHECK(mprotect(map, NPAGES * page, PROT_READ) == 0);
	CHECK(mprotect(map, NPAGES * page, PROT_READ | PROT_WRITE) == 0);
	map[6 * page + 1] = 'M';
	CHECK(file_get(fd, 6 * page + 1) == pattern(6));
	CHECK_CMP(smaps_kb(map, "Anonymous"), ==, (NWRITTEN + 1) * page / 1024);

	/* msync of a private mapping: nothing to write back, 0. */
	CHECK(msync(map, NPAGES * page, MS_SYNC) == 0);
	CHECK(msync(map, NPAGES * page, MS_INVALIDATE) == 0);
	CHECK(map[7 * page] == pattern(7) && map[0] == 'W');

	/* fork: the child sees the file's page 5 as it is now, and the
	 * parent's copies; its write stays its own. */
	CHECK(file_put(fd, 5 * page, 'F'));
	CHECK(map[5 * page] == 'F');
	pid_t pid = fork();
	if (pid == 0)
		_exit(child(map, fd));
	int status;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's view (exit status %#x)", status);
	CHECK(map[5 * page + 1] == pattern(5));

	/* A hole punched in pages 2..9: the pages only read show it, the
	 * copies (2, 3, 6) keep what they held. */
	if (syscall(SYS_fallocate, fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * page, 8 * page) == 0) {
		CHECK(map[2 * page] == 'W' && map[3 * page] == 'W' && map[6 * page + 1] == 'M');
		CHECK(all_bytes(map + 4 * page, 2 * page, 0));
		CHECK(all_bytes(map + 7 * page, 3 * page, 0));
		CHECK(map[10 * page] == pattern(10));
	} else {
		check_skip("fallocate(PUNCH_HOLE) in %s: %s", dir, errno_name(errno));
	}

	/* Truncated to 3 pages: the copy of page 3 goes too, a touch past
	 * the end is SIGBUS; the copies below the end stay. */
	CHECK(ftruncate(fd, 3 * page) == 0);
	CHECK(sigbus_at(map + 3 * page));
	CHECK(sigbus_at(map + 6 * page + 1));
	CHECK(sigbus_at(map + 12 * page));
	char v;
	CHECK(read_byte(map + 2 * page, &v) && v == 'W');
	CHECK(read_byte(map + 20, &v) && v == 'W');
	CHECK_CMP(smaps_kb(map, "Rss"), ==, 3 * page / 1024);
	CHECK_CMP(smaps_kb(map, "Anonymous"), ==, 3 * page / 1024);
	/* In core: the copies; past the end the cache has nothing. */
	CHECK(mincore(map, NPAGES * page, vec) == 0 && count_in_core(vec, NPAGES) == 3 &&
	      count_in_core(vec, 3) == 3);
	CHECK(munmap(map, NPAGES * page) == 0);
	if (on_mmlab())
		CHECK_CMP(status_kb("RssShmem"), ==, shmem0);
	close(fd);
	return test_end();
}
