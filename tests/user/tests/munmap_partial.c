/* munmap(2): unmapping the head, the tail and a hole in the middle of a
 * mapping leaves the rest in place with its contents; one call can span
 * several mappings and the gaps between them; the errors (unaligned start,
 * zero length); unmapping what is not mapped succeeds; VmSize follows. The
 * unmapped pages themselves are checked with pread(2) (EFAULT), since
 * touching them would kill the program (crash/unmapped_write does that). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW (PROT_READ | PROT_WRITE)

static int probe_fd = -1;

/* True if a byte can be stored at p, asked without touching it ourselves:
 * the kernel copies a byte of /proc/meminfo there, or fails with EFAULT
 * when nothing (writable) is mapped. Only used where the answer should be
 * no, or where that byte does not matter. */
static bool accessible(void *p)
{
	return pread(probe_fd, p, 1, 0) == 1;
}

static void pieces(void)
{
	long size0 = status_kb("VmSize");
	char *a = mmap(NULL, 16 * PAGE_4K, RW, ANON, -1, 0);
	if (!CHECK(a != MAP_FAILED))
		return;
	for (int i = 0; i < 16; i++)
		memset(a + i * PAGE_4K, 'A' + i, PAGE_4K);
	long size1 = status_kb("VmSize");
	CHECK_CMP(size1 - size0, ==, 64);

	CHECK(munmap(a, 2 * PAGE_4K) == 0);                  /* head: pages 0-1 */
	CHECK(munmap(a + 14 * PAGE_4K, 2 * PAGE_4K) == 0);   /* tail: pages 14-15 */
	CHECK(munmap(a + 6 * PAGE_4K, 3 * PAGE_4K) == 0);    /* hole: pages 6-8 */
	CHECK_CMP(size1 - status_kb("VmSize"), ==, 7 * 4);

	bool kept = true;
	for (int i = 0; i < 16; i++) {
		bool gone = i < 2 || i >= 14 || (i >= 6 && i <= 8);
		if (gone)
			kept &= !accessible(a + i * PAGE_4K);
		else
			kept &= all_bytes(a + i * PAGE_4K, PAGE_4K, (unsigned char)('A' + i));
	}
	CHECKF(kept, "pages 2-5 and 9-13 keep their contents, 0-1, 6-8, 14-15 are gone (EFAULT)");

	/* The two remaining pieces are still ordinary writable memory. */
	memset(a + 2 * PAGE_4K, 'x', 4 * PAGE_4K);
	memset(a + 9 * PAGE_4K, 'y', 5 * PAGE_4K);
	CHECK(all_bytes(a + 2 * PAGE_4K, 4 * PAGE_4K, 'x') && all_bytes(a + 9 * PAGE_4K, 5 * PAGE_4K, 'y'));

	/* Unaligned length is rounded up: one byte takes the whole page. */
	CHECK(munmap(a + 13 * PAGE_4K, 1) == 0);
	CHECK(!accessible(a + 13 * PAGE_4K));
	CHECK(all_bytes(a + 12 * PAGE_4K, PAGE_4K, 'y'));

	/* One call across both pieces and the hole between them. */
	CHECK(munmap(a, 16 * PAGE_4K) == 0);
	CHECK(!accessible(a + 2 * PAGE_4K) && !accessible(a + 9 * PAGE_4K));
	CHECK_CMP(status_kb("VmSize"), ==, size0);
}

/* Three separate mappings placed side by side with MAP_FIXED_NOREPLACE
 * (different protections, so that they stay separate VMAs), unmapped by one
 * call that starts in the first and ends in the third. */
static void across_mappings(void)
{
	char *base = mmap(NULL, 12 * PAGE_4K, RW, ANON, -1, 0);
	if (!CHECK(base != MAP_FAILED))
		return;
	CHECK(munmap(base, 12 * PAGE_4K) == 0);
	char *m1 = mmap(base, 4 * PAGE_4K, RW, ANON | MAP_FIXED_NOREPLACE, -1, 0);
	char *m2 = mmap(base + 4 * PAGE_4K, 4 * PAGE_4K, PROT_READ, ANON | MAP_FIXED_NOREPLACE, -1, 0);
	char *m3 = mmap(base + 8 * PAGE_4K, 4 * PAGE_4K, RW, ANON | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(m1 == base && m2 == base + 4 * PAGE_4K && m3 == base + 8 * PAGE_4K);
	memset(m1, 1, 4 * PAGE_4K);
	memset(m3, 3, 4 * PAGE_4K);
	long size0 = status_kb("VmSize");
	CHECK(munmap(base + 2 * PAGE_4K, 8 * PAGE_4K) == 0);
	CHECK_CMP(size0 - status_kb("VmSize"), ==, 8 * 4);
	CHECK(all_bytes(m1, 2 * PAGE_4K, 1) && all_bytes(m3 + 2 * PAGE_4K, 2 * PAGE_4K, 3));
	CHECK(!accessible(m1 + 2 * PAGE_4K) && !accessible(m2) && !accessible(m2 + 3 * PAGE_4K) &&
	      !accessible(m3 + PAGE_4K));
	CHECK(munmap(base, 12 * PAGE_4K) == 0);
}

static void errors(void)
{
	char *a = mmap(NULL, 4 * PAGE_4K, RW, ANON, -1, 0);
	if (!CHECK(a != MAP_FAILED))
		return;
	CHECK_ERRNO(munmap(a + 1, PAGE_4K), EINVAL);
	CHECK_ERRNO(munmap(a + 100, PAGE_4K), EINVAL);
	CHECK_ERRNO(munmap(a, 0), EINVAL);
	CHECK_ERRNO(munmap(a + PAGE_4K, 0), EINVAL);
	CHECK_ERRNO(munmap((void *)0xffff800000000000UL, PAGE_4K), EINVAL);
	CHECK(accessible(a) && accessible(a + 3 * PAGE_4K));
	CHECK(munmap(a, 4 * PAGE_4K) == 0);
	/* Nothing mapped there any more: still success, twice. */
	CHECK(munmap(a, 4 * PAGE_4K) == 0);
	CHECK(munmap((void *)0x300000000000UL, 64 * MiB) == 0);
}

int main(void)
{
	test_begin("munmap_partial");
	probe_fd = open("/proc/meminfo", O_RDONLY);
	CHECK(probe_fd >= 0);
	pieces();
	across_mappings();
	errors();
	return test_end();
}
