/* /proc/self/pagemap as Linux serves it (fs/proc/task_mmu.c,
 * Documentation/admin-guide/mm/pagemap.rst): 8 bytes per virtual page at
 * offset (address / 4096) * 8; bit 63 present, 62 swapped, 61 file or
 * shared anonymous, 56 exclusively mapped, 55 soft-dirty, 0-54 the PFN
 * (shown to CAP_SYS_ADMIN only: 0 otherwise).
 *
 * Checked on both kernels: a written page is present, exclusive, not
 * swapped nor file, with a PFN (when privileged: mmlab's processes are
 * root, so there always) that differs from its neighbour's; a page only
 * read is present (the zero page: not exclusive; a kernel that backs reads
 * with pages of their own: exclusive); a page never touched or given back
 * with MADV_DONTNEED reads 0 (bit 55 aside: a Linux with soft-dirty
 * tracking sets it in every VMA); offsets and counts not multiples of 8
 * are EINVAL; reads far beyond the address space give 0 bytes; lseek
 * works (SEEK_SET, SEEK_CUR; SEEK_END is EINVAL); the file is mode 0400
 * and size 0, as Linux's REG("pagemap", S_IRUSR). Reading the entries of
 * a huge range with no page tables allocates none (VmPTE unchanged). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static off_t pm_offset(const void *addr) { return (off_t)((uintptr_t)addr / PAGE_4K * 8); }

int main(void)
{
	test_begin("pagemap");
	int fd = open("/proc/self/pagemap", O_RDONLY);
	if (!CHECK(fd >= 0))
		return test_end();
	struct stat st;
	CHECK(fstat(fd, &st) == 0);
	CHECKF(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0400 && st.st_size == 0,
	       "a regular file, mode 0400 (S_IRUSR), size 0 (mode %#o, size %lld)", (unsigned)st.st_mode,
	       (long long)st.st_size);
	/* PFNs are shown to CAP_SYS_ADMIN only (capabilities checks the
	 * refusal): root's, unless it was dropped. */
	bool show_pfn = geteuid() == 0;
	if (!show_pfn)
		note("not root: every PFN shows as 0");

	unsigned char *p = mmap(NULL, 8 * PAGE_4K, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!CHECK(p != MAP_FAILED))
		return test_end();
	small_pages(p, 8 * PAGE_4K); /* one page a fault, even with multi-size THP */
	touch_pages(p, PAGE_4K, 1);                 /* page 0 written */
	touch_pages(p + 4 * PAGE_4K, PAGE_4K, 4);   /* page 4 written */
	volatile unsigned char sink = p[PAGE_4K];   /* page 1 read */
	(void)sink;
	touch_pages(p + 3 * PAGE_4K, PAGE_4K, 3);   /* page 3 written, then given back */
	CHECK(madvise(p + 3 * PAGE_4K, PAGE_4K, MADV_DONTNEED) == 0);

	uint64_t e[8];
	CHECK_CMP(pread(fd, e, sizeof(e), pm_offset(p)), ==, (long)sizeof(e));
	CHECKF((e[0] & (PM_PRESENT | PM_EXCLUSIVE | PM_SWAP | PM_FILE)) == (PM_PRESENT | PM_EXCLUSIVE),
	       "a written page: present, exclusive, not swap nor file (%#llx)", (unsigned long long)e[0]);
	if (show_pfn) {
		CHECKF((e[0] & PM_PFN_MASK) != 0, "a written page has a PFN (%#llx)",
		       (unsigned long long)(e[0] & PM_PFN_MASK));
		CHECKF((e[0] & PM_PFN_MASK) != (e[4] & PM_PFN_MASK), "two written pages, two PFNs");
	}
	CHECKF(e[1] & PM_PRESENT, "a page only read is present (%#llx)", (unsigned long long)e[1]);
	if (reads_map_zero_page()) {
		CHECKF(!(e[1] & PM_EXCLUSIVE), "the zero page is not exclusively mapped (%#llx)",
		       (unsigned long long)e[1]);
		if (show_pfn)
			CHECKF((e[1] & PM_PFN_MASK) != 0 && (e[1] & PM_PFN_MASK) != (e[0] & PM_PFN_MASK),
			       "the zero page has a PFN of its own (%#llx)", (unsigned long long)(e[1] & PM_PFN_MASK));
	}
	CHECKF((e[2] & ~PM_SOFT_DIRTY) == 0, "a page never touched: nothing (%#llx)", (unsigned long long)e[2]);
	CHECKF((e[3] & ~PM_SOFT_DIRTY) == 0, "a page given back: nothing (%#llx)", (unsigned long long)e[3]);
	CHECKF((e[4] & (PM_PRESENT | PM_EXCLUSIVE)) == (PM_PRESENT | PM_EXCLUSIVE), "page 4 written");
	for (int i = 5; i < 8; i++)
		CHECKF((e[i] & ~PM_SOFT_DIRTY) == 0, "page %d never touched (%#llx)", i, (unsigned long long)e[i]);

	/* Another read of the same page gives the same entry (no snapshot:
	 * each read walks the page tables now). */
	uint64_t again;
	CHECK_CMP(pread(fd, &again, 8, pm_offset(p)), ==, 8);
	CHECK(again == e[0]);
	touch_pages(p + 2 * PAGE_4K, PAGE_4K, 2);
	CHECK_CMP(pread(fd, &again, 8, pm_offset(p + 2 * PAGE_4K)), ==, 8);
	CHECKF(again & PM_PRESENT, "page 2, written since, is present now (%#llx)", (unsigned long long)again);

	/* lseek and read, as the offset says. */
	CHECK_CMP(lseek(fd, pm_offset(p), SEEK_SET), ==, pm_offset(p));
	CHECK_CMP(read(fd, &again, 8), ==, 8);
	CHECK(again == e[0]);
	CHECK_CMP(lseek(fd, 0, SEEK_CUR), ==, pm_offset(p) + 8);
	CHECK_CMP(lseek(fd, 24, SEEK_CUR), ==, pm_offset(p) + 32);
	CHECK_CMP(read(fd, &again, 8), ==, 8);
	CHECK(again == e[4]);
	CHECK_ERRNO(lseek(fd, 0, SEEK_END), EINVAL);

	/* Linux's checks: offset and count multiples of 8. */
	CHECK_ERRNO(pread(fd, e, 8, pm_offset(p) + 4), EINVAL);
	CHECK_ERRNO(pread(fd, e, 12, pm_offset(p)), EINVAL);
	CHECK_CMP(pread(fd, e, 0, pm_offset(p)), ==, 0);
	/* Far beyond any user address space: nothing to read. */
	CHECK_CMP(pread(fd, e, 8, (off_t)((1ull << 57) / PAGE_4K * 8)), ==, 0);

	/* 1 GiB reserved and never touched: 262,144 entries of nothing, and
	 * no page table allocated to say so. */
	size_t big = 1ul << 30;
	unsigned char *q = map_noreserve(big, "1 GiB MAP_NORESERVE");
	if (q) {
		static uint64_t buf[65536]; /* 512 KiB of entries: 256 MiB a read */
		memset(buf, 0xff, sizeof(buf)); /* touched before VmPTE is read */
		long pte_before = status_kb("VmPTE");
		uint64_t any = 0;
		bool whole = true;
		for (size_t off = 0; off < big; off += sizeof(buf) / 8 * PAGE_4K) {
			whole &= pread(fd, buf, sizeof(buf), pm_offset(q + off)) == (long)sizeof(buf);
			for (size_t i = 0; i < sizeof(buf) / 8; i++)
				any |= buf[i] & ~PM_SOFT_DIRTY;
		}
		long pte_after = status_kb("VmPTE");
		CHECK(whole);
		CHECKF(any == 0, "no entry of an untouched 1 GiB says anything (%#llx)", (unsigned long long)any);
		CHECK_CMP(pte_after, ==, pte_before);
		note("VmPTE %ld kB before and %ld kB after reading 1 GiB of entries", pte_before, pte_after);
		CHECK(munmap(q, big) == 0);
	}

	CHECK(munmap(p, 8 * PAGE_4K) == 0);
	CHECK(close(fd) == 0);
	return test_end();
}
