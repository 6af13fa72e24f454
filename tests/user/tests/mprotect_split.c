/* mprotect(2) on part of a mapping. Without signals a program cannot watch
 * its own write fault (crash/readonly_write does that), so the protection
 * is observed through the kernel's user copies: read(2) into a read-only or
 * PROT_NONE page fails with EFAULT, write(2) from a PROT_NONE page too,
 * while the program still reads the read-only page and writes the
 * neighbours. Where /proc/self/maps exists (Linux) the
 * VMA split and re-merge are counted too. Errors: a hole in the range
 * (ENOMEM), an unaligned start (EINVAL), unknown protection bits (EINVAL). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)

static int status_fd = -1;

/* Can the kernel store into p? (copies one byte of /proc/self/status) */
static bool kernel_can_store(void *p)
{
	return pread(status_fd, p, 1, 0) == 1;
}

/* The number of /proc/self/maps lines inside [lo, hi), -1 without the file. */
static int vmas_in(const char *lo, const char *hi)
{
	static char maps[65536];
	if (read_file("/proc/self/maps", maps, sizeof(maps)) < 0)
		return -1;
	int n = 0;
	for (char *line = maps; line && *line;) {
		char *end;
		unsigned long start = strtoul(line, &end, 16);
		if (start >= (uintptr_t)lo && start < (uintptr_t)hi)
			n++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return n;
}

static void split(void)
{
	char *a = mmap(NULL, 8 * PAGE_4K, RW, ANON, -1, 0);
	if (!CHECK(a != MAP_FAILED))
		return;
	memset(a, ' ', 8 * PAGE_4K);
	char *hi = a + 8 * PAGE_4K;
	int vmas = vmas_in(a, hi);
	if (vmas >= 0)
		CHECK_CMP(vmas, ==, 1);

	CHECK(mprotect(a + 3 * PAGE_4K, 2 * PAGE_4K, PROT_READ) == 0);
	CHECK_ERRNO(read(status_fd, a + 3 * PAGE_4K, 1), EFAULT);
	CHECK_ERRNO(read(status_fd, a + 4 * PAGE_4K + 100, 1), EFAULT);
	CHECK(kernel_can_store(a + 2 * PAGE_4K) && kernel_can_store(a + 5 * PAGE_4K));
	CHECK(all_bytes(a + 3 * PAGE_4K, 2 * PAGE_4K, ' '));
	/* A copy that starts writable and runs into the read-only page fails
	 * (Linux may report the bytes it did copy; that counts as a short read). */
	long r = pread(status_fd, a + 3 * PAGE_4K - 10, 100, 0);
	CHECKF(r == -1 || r < 100, "read across the protection boundary is cut short (%ld)", r);
	memset(a, 'w', 3 * PAGE_4K);
	memset(a + 5 * PAGE_4K, 'w', 3 * PAGE_4K);
	CHECK(all_bytes(a, 3 * PAGE_4K, 'w') && all_bytes(a + 5 * PAGE_4K, 3 * PAGE_4K, 'w'));
	vmas = vmas_in(a, hi);
	if (vmas >= 0)
		CHECKF(vmas == 3, "/proc/self/maps: the range is 3 VMAs (%d)", vmas);

	CHECK(mprotect(a + 4 * PAGE_4K, PAGE_4K, PROT_NONE) == 0);
	CHECK_ERRNO(write(2, a + 4 * PAGE_4K, 1), EFAULT);
	CHECK(all_bytes(a + 3 * PAGE_4K, PAGE_4K, ' '));
	vmas = vmas_in(a, hi);
	if (vmas >= 0)
		CHECKF(vmas == 4, "/proc/self/maps: the range is 4 VMAs (%d)", vmas);

	/* Back to read-write: everything works again, contents intact, and the
	 * pieces merge back into one VMA on Linux. */
	CHECK(mprotect(a, 8 * PAGE_4K, RW) == 0);
	CHECK(all_bytes(a + 3 * PAGE_4K, 2 * PAGE_4K, ' '));
	CHECK(kernel_can_store(a + 3 * PAGE_4K) && kernel_can_store(a + 4 * PAGE_4K));
	memset(a, 'z', 8 * PAGE_4K);
	CHECK(all_bytes(a, 8 * PAGE_4K, 'z'));
	vmas = vmas_in(a, hi);
	if (vmas >= 0)
		CHECKF(vmas == 1, "/proc/self/maps: merged back into 1 VMA (%d)", vmas);
	else
		note("no /proc/self/maps here: VMA counts not checked");

	/* Unaligned length is rounded up to the page. */
	CHECK(mprotect(a, 1, PROT_READ) == 0);
	CHECK_ERRNO(read(status_fd, a + PAGE_4K - 1, 1), EFAULT);
	CHECK(kernel_can_store(a + PAGE_4K));
	CHECK(munmap(a, 8 * PAGE_4K) == 0);
}

static void errors(void)
{
	char *a = mmap(NULL, 6 * PAGE_4K, RW, ANON, -1, 0);
	if (!CHECK(a != MAP_FAILED))
		return;
	CHECK(munmap(a + 2 * PAGE_4K, PAGE_4K) == 0);
	CHECK_ERRNO(mprotect(a, 6 * PAGE_4K, PROT_READ), ENOMEM);
	CHECK_ERRNO(mprotect(a + 2 * PAGE_4K, PAGE_4K, PROT_READ), ENOMEM);
	/* The system call: musl's mprotect() rounds the start down itself. */
	CHECK_ERRNO(syscall(SYS_mprotect, a + 1, PAGE_4K, PROT_READ), EINVAL);
	CHECK_ERRNO(mprotect(a, PAGE_4K, 0x40), EINVAL);
	CHECK_ERRNO(mprotect(a, PAGE_4K, PROT_READ | 0x1000), EINVAL);
	CHECK(mprotect(a, 0, PROT_READ) == 0);
	/* Linux changes the pages before the hole and then fails; a kernel may
	 * also check first. Either way the pages after the hole are untouched. */
	CHECK(kernel_can_store(a + 3 * PAGE_4K));
	CHECK(munmap(a, 6 * PAGE_4K) == 0);
	CHECK_ERRNO(mprotect(a, PAGE_4K, PROT_READ), ENOMEM);
}

int main(void)
{
	test_begin("mprotect_split");
	status_fd = open("/proc/self/status", O_RDONLY);
	CHECK(status_fd >= 0);
	split();
	errors();
	return test_end();
}
