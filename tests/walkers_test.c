/* The page-table readers: mincore(2) (mm/mincore.c), /proc/<pid>/pagemap,
 * smaps and smaps_rollup (fs/proc/task_mmu.c), all through the one walk of
 * mm/pagewalk.c. Each reader's answer is checked page by page against the
 * page tables the case built (read back directly, not through the walk),
 * and against what the case knows it did: pages written, pages read (the
 * zero page), a huge PMD made by hand (as tests/pgtable_test.c makes one:
 * no THP yet), pages given back with MADV_DONTNEED, a PMD range with no
 * PTE table at all.
 *
 * The readers run under each pte_reclaim mode (switched while no user mm
 * exists; a mode that cannot be set now is skipped, said why) and must leave
 * every PTE table's count as they found it: pte_ref_verify(mm) after each
 * one. Every case checks that free pages, slab objects and page-table
 * pages come back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "tests/test_proc.h"
#include "tests/test_cpu.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "fs/proc/internal.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/pagewalk.h"
#include "mm/pt_reclaim.h"
#include "mm/pte_ref.h"
#include "mm/slab.h"
#include "mm/util.h"

#define BASE 0x0000310000000000ul /* a PGD entry of its own */
#define SPAN (3 * PMD_SIZE)        /* the walked VMA: three PMDs */
#define NPAGES (SPAN >> PAGE_SHIFT)
#define VEC (BASE + 4 * PMD_SIZE)  /* a writable VMA for user buffers */
#define VEC_SIZE (4 * PAGE_SIZE)
#define RO (BASE + 5 * PMD_SIZE)   /* a read-only VMA */
#define RW (PROT_READ | PROT_WRITE)
#define WRITTEN 10                 /* pages 0..9 written */
#define READ_END 15                /* pages 10..14 read: the zero page */
#define DONTNEED 3                 /* pages 3 and 4 given back */
#define LONE (2 * 512 + 5)         /* the one page written under the third PMD */

/* Linux's pagemap bits. */
#define PM_PFRAME_MASK ((1ull << 55) - 1)
#define PM_MMAP_EXCLUSIVE (1ull << 56)
#define PM_PRESENT (1ull << 63)

struct space {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	struct page *huge;
};

static void kfree_action(void *p) { kfree(p); }

static void fault(struct kunit *test, struct space *s, unsigned long addr, unsigned int flags)
{
	mmap_read_lock(s->mm);
	vm_fault_t ret = handle_mm_fault(s->vma, addr, flags);
	mmap_read_unlock(s->mm);
	KUNIT_ASSERT_EQ(test, ret, 0);
}

/* Maps an order-9 page with a huge PMD at addr (2 MiB aligned, nothing
 * there before), counted as a fault would count it. */
static void map_huge(struct kunit *test, struct space *s, unsigned long addr)
{
	pud_t *pud = pud_alloc(s->mm, pgd_offset(s->mm, addr), addr);
	KUNIT_ASSERT_NOT_NULL(test, pud);
	pmd_t *pmd = pmd_alloc(s->mm, pud, addr);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	KUNIT_ASSERT_TRUE(test, pmd_none(pmdp_get(pmd)));
	s->huge = alloc_pages(GFP_KERNEL | __GFP_ZERO, HPAGE_PMD_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, s->huge);
	KUNIT_ASSERT_EQ(test, map_anon_folio_pmd(s->vma, pmd, addr, s->huge, _PAGE_ACCESSED), 0);
}

/* The space every reader looks at, used by the current task:
 *   VMA [BASE, BASE + SPAN), private anonymous, read-write:
 *     first PMD: pages 0..9 written, 10..14 read (the zero page), the rest
 *       never touched, then pages 3 and 4 given back (MADV_DONTNEED);
 *     second PMD: a huge PMD;
 *     third PMD: only page LONE written;
 *   a gap (no VMA) up to VEC; VEC: VEC_SIZE read-write, for user buffers;
 *   RO: one read-only page. */
static void space_init(struct kunit *test, struct space *s)
{
	s->mm = test_mm_create(test, TEST_MM_CURRENT);
	unsigned long flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	KUNIT_ASSERT_EQ(test, do_mmap(s->mm, BASE, SPAN, RW, flags), BASE);
	KUNIT_ASSERT_EQ(test, do_mmap(s->mm, VEC, VEC_SIZE, RW, flags), VEC);
	KUNIT_ASSERT_EQ(test, do_mmap(s->mm, RO, PAGE_SIZE, PROT_READ, flags), RO);
	s->vma = find_vma(s->mm, BASE);
	for (unsigned long i = 0; i < WRITTEN; i++)
		fault(test, s, BASE + i * PAGE_SIZE, FAULT_FLAG_WRITE);
	for (unsigned long i = WRITTEN; i < READ_END; i++)
		fault(test, s, BASE + i * PAGE_SIZE, 0);
	map_huge(test, s, BASE + PMD_SIZE);
	fault(test, s, BASE + LONE * PAGE_SIZE, FAULT_FLAG_WRITE);
	mmap_read_lock(s->mm);
	zap_page_range(s->vma, BASE + DONTNEED * PAGE_SIZE, 2 * PAGE_SIZE);
	mmap_read_unlock(s->mm);
}

static void space_destroy(struct kunit *test, struct space *s)
{
	test_mm_destroy(test, s->mm); /* page-table pages, pages and slab objects back */
}

/* What the page tables hold for addr, read directly (with a reference on a
 * PTE table, as mm/pte_ref.h asks): 0 when nothing is mapped, else the
 * PFN (a huge PMD's page: the head's plus the index), with *zero set for
 * the zero page. */
static unsigned long mapped_pfn(struct mm_struct *mm, unsigned long addr, bool *zero)
{
	*zero = false;
	pmd_t *pmd = mm_find_pmd(mm, addr);
	if (!pmd)
		return 0;
	pmd_t val = pmdp_get(pmd);
	if (pmd_trans_huge(val))
		return pmd_present(val) ? pmd_pfn(val) + ((addr & ~PMD_MASK) >> PAGE_SHIFT) : 0;
	pte_t *pte = pte_tryget_map(mm, pmd, addr);
	if (!pte)
		return 0;
	pte_t entry = ptep_get(pte);
	pte_unmap(pte);
	pte_put(mm, pmd, addr);
	if (!pte_present(entry))
		return 0;
	*zero = is_zero_pfn(pte_pfn(entry));
	return pte_pfn(entry);
}

static void expect_counts_kept(struct kunit *test, struct space *s, const char *after)
{
	unsigned long bad = pte_ref_verify(s->mm);
	if (bad)
		kunit_info(test, "after %s: %lu PTE table counts off\n", after, bad);
	KUNIT_EXPECT_EQ(test, bad, 0);
}

/* ---- mincore ---- */

static void check_mincore(struct kunit *test, struct space *s)
{
	unsigned char *vec = kmalloc(NPAGES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, vec);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, vec), 0);
	KUNIT_ASSERT_LE(test, NPAGES, VEC_SIZE);
	KUNIT_ASSERT_EQ(test, ksys_mincore(BASE, SPAN, (unsigned char *)VEC), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(vec, (void *)VEC, NPAGES), 0);
	unsigned long wrong = 0, resident = 0;
	for (unsigned long i = 0; i < NPAGES; i++) {
		bool zero;
		unsigned char want = mapped_pfn(s->mm, BASE + i * PAGE_SIZE, &zero) ? 1 : 0;
		resident += want;
		if (vec[i] != want && wrong++ < 4)
			kunit_info(test, "mincore: page %lu reads %u, the page table says %u\n", i, vec[i], want);
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);
	/* What the case did: written, given back, the zero page (resident,
	 * as Linux says), never touched, the huge PMD, the lone page. */
	KUNIT_EXPECT_EQ(test, resident, (WRITTEN - 2) + (READ_END - WRITTEN) + HPAGE_PMD_NR + 1);
	KUNIT_EXPECT_EQ(test, vec[0], 1);
	KUNIT_EXPECT_EQ(test, vec[DONTNEED], 0);
	KUNIT_EXPECT_EQ(test, vec[WRITTEN], 1);
	KUNIT_EXPECT_EQ(test, vec[READ_END], 0);
	KUNIT_EXPECT_EQ(test, vec[512], 1);
	KUNIT_EXPECT_EQ(test, vec[1023], 1);
	KUNIT_EXPECT_EQ(test, vec[1024], 0);
	KUNIT_EXPECT_EQ(test, vec[LONE], 1);
	/* A range that starts inside the huge PMD and ends inside the next. */
	KUNIT_ASSERT_EQ(test, ksys_mincore(BASE + PMD_SIZE + 510 * PAGE_SIZE, 8 * PAGE_SIZE,
					   (unsigned char *)VEC), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(vec, (void *)VEC, 8), 0);
	for (int i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, vec[i], i < 2 || i == 7 ? 1 : 0);
	kunit_release_action(test, kfree_action, vec);
	expect_counts_kept(test, s, "mincore");
}

/* ---- pagemap ---- */

/* Reads count bytes of /proc/self/pagemap at pos (for the current task,
 * whose mm is the space's) into buf: what procfs_read_at returns. */
static long pagemap_pread(struct kunit *test, void *buf, size_t count, long pos, long *newpos)
{
	struct proc_node node;
	KUNIT_ASSERT_EQ(test, procfs_lookup("/proc/self/pagemap", current, &node), 0);
	KUNIT_ASSERT_TRUE(test, procfs_node_reads_at_offset(&node));
	long ret = procfs_read_at(&node, buf, count, &pos, false);
	if (newpos)
		*newpos = pos;
	return ret;
}

#define PM_POS(addr) ((long)((addr) >> PAGE_SHIFT) * 8)

static void check_pagemap(struct kunit *test, struct space *s)
{
	u64 *pme = kmalloc((NPAGES + 2) * 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pme);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, pme), 0);
	/* One page before the VMA (a gap), the VMA, one page after it. */
	long pos;
	KUNIT_ASSERT_EQ(test, pagemap_pread(test, pme, (NPAGES + 2) * 8, PM_POS(BASE - PAGE_SIZE), &pos),
			(long)(NPAGES + 2) * 8);
	KUNIT_EXPECT_EQ(test, pos, PM_POS(BASE + SPAN + PAGE_SIZE));
	KUNIT_EXPECT_EQ(test, pme[0], 0);
	KUNIT_EXPECT_EQ(test, pme[NPAGES + 1], 0);
	unsigned long wrong = 0;
	for (unsigned long i = 0; i < NPAGES; i++) {
		bool zero;
		unsigned long pfn = mapped_pfn(s->mm, BASE + i * PAGE_SIZE, &zero);
		/* Present with the PFN (root sees it); exclusively mapped unless
		 * it is the zero page (not a normal page in Linux). */
		u64 want = pfn ? PM_PRESENT | pfn | (zero ? 0 : PM_MMAP_EXCLUSIVE) : 0;
		if (pme[i + 1] != want && wrong++ < 4)
			kunit_info(test, "pagemap: page %lu reads %#llx, the page table says %#llx\n", i,
				  (unsigned long long)pme[i + 1], (unsigned long long)want);
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);
	u64 *v = pme + 1;
	KUNIT_EXPECT_EQ(test, v[0] & (PM_PRESENT | PM_MMAP_EXCLUSIVE), PM_PRESENT | PM_MMAP_EXCLUSIVE);
	KUNIT_EXPECT_NE(test, v[0] & PM_PFRAME_MASK, 0);
	KUNIT_EXPECT_EQ(test, v[DONTNEED], 0);
	KUNIT_EXPECT_EQ(test, v[WRITTEN], PM_PRESENT | page_to_pfn(zero_page));
	KUNIT_EXPECT_EQ(test, v[READ_END], 0);
	/* Each 4 KiB page of the huge PMD has its own PFN. */
	for (unsigned long i = 0; i < HPAGE_PMD_NR; i += 73)
		KUNIT_EXPECT_EQ(test, v[512 + i], PM_PRESENT | PM_MMAP_EXCLUSIVE | (page_to_pfn(s->huge) + i));
	KUNIT_EXPECT_EQ(test, v[1024], 0);
	KUNIT_EXPECT_EQ(test, v[LONE] & PM_PRESENT, PM_PRESENT);

	/* A read that starts inside the huge PMD. */
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, pme, 16, PM_POS(BASE + PMD_SIZE + 7 * PAGE_SIZE), NULL), 16);
	KUNIT_EXPECT_EQ(test, pme[0] & PM_PFRAME_MASK, page_to_pfn(s->huge) + 7);
	KUNIT_EXPECT_EQ(test, pme[1] & PM_PFRAME_MASK, page_to_pfn(s->huge) + 8);

	/* Linux's pagemap_read checks: offset and count multiples of 8;
	 * nothing at or beyond TASK_SIZE; a read across it stops there. */
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, pme, 8, PM_POS(BASE) + 4, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, pme, 12, PM_POS(BASE), NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, pme, 0, PM_POS(BASE), NULL), 0);
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, pme, 8, PM_POS(TASK_SIZE), &pos), 0);
	KUNIT_EXPECT_EQ(test, pos, PM_POS(TASK_SIZE));
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, pme, 8, 0x7ffffffffffffff8l, NULL), 0);
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, pme, 32, PM_POS(TASK_SIZE - PAGE_SIZE), &pos), 8);
	KUNIT_EXPECT_EQ(test, pos, PM_POS(TASK_SIZE));
	/* The file cannot be generated whole. */
	char *buf;
	size_t len;
	KUNIT_EXPECT_EQ(test, procfs_generate("/proc/self/pagemap", current, &buf, &len), -EINVAL);
	kunit_release_action(test, kfree_action, pme);
	expect_counts_kept(test, s, "pagemap");
}

/* ---- smaps ---- */

/* The number after "label" (which ends in ':') in text from `from` on, as
 * Linux prints it ("Rss:   123 kB"); -1 when absent. */
static long field(const char *text, const char *label)
{
	const char *p = strstr(text, label);
	if (!p)
		return -1;
	p += strlen(label);
	while (*p == ' ')
		p++;
	long v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	return v;
}

/* Linux 6.12's smaps lines, in order, after the VMA's maps line. */
static const char *const smaps_labels[] = {
	"Size:           ", "KernelPageSize: ", "MMUPageSize:    ", "Rss:            ",
	"Pss:            ", "Pss_Dirty:      ", "Shared_Clean:   ", "Shared_Dirty:   ",
	"Private_Clean:  ", "Private_Dirty:  ", "Referenced:     ", "Anonymous:      ",
	"KSM:            ", "LazyFree:       ", "AnonHugePages:  ", "ShmemPmdMapped: ",
	"FilePmdMapped:  ", "Shared_Hugetlb: ", "Private_Hugetlb: ", "Swap:           ",
	"SwapPss:        ", "Locked:         ", "THPeligible:    ", "VmFlags: ",
};

static void check_smaps(struct kunit *test, struct space *s)
{
	/* Rss from the page tables read directly: normal pages only. */
	unsigned long rss_pages = 0;
	for (unsigned long i = 0; i < NPAGES; i++) {
		bool zero;
		if (mapped_pfn(s->mm, BASE + i * PAGE_SIZE, &zero) && !zero)
			rss_pages++;
	}
	KUNIT_EXPECT_EQ(test, rss_pages, (WRITTEN - 2) + HPAGE_PMD_NR + 1);

	const char *text = test_proc_read(test, "/proc/self/smaps");
	char head[64];
	snprintf(head, sizeof(head), "%08lx-%08lx rw-p 00000000 00:00 0 \n", BASE, BASE + SPAN);
	const char *blk = strstr(text, head);
	KUNIT_ASSERT_NOT_NULL(test, blk);
	KUNIT_EXPECT_TRUE(test, blk == text); /* the first VMA */
	blk += strlen(head);
	/* Every line in Linux's order, each "label%8lu kB" (Private_Hugetlb
	 * %7lu, THPeligible %8u, VmFlags its letters). */
	const char *p = blk;
	for (size_t i = 0; i < ARRAY_SIZE(smaps_labels); i++) {
		size_t n = strlen(smaps_labels[i]);
		bool ok = !strncmp(p, smaps_labels[i], n);
		if (!ok)
			kunit_info(test, "smaps: line %zu is not %s\n", i, smaps_labels[i]);
		KUNIT_EXPECT_TRUE(test, ok);
		if (!ok)
			break;
		if (i + 2 < ARRAY_SIZE(smaps_labels))
			KUNIT_EXPECT_EQ(test, strchr(p, '\n') - p, (long)n + 8 + 3 - (i == 18));
		p = strchr(p, '\n') + 1;
	}
	KUNIT_EXPECT_EQ(test, field(blk, "Size:"), (long)(SPAN >> 10));
	KUNIT_EXPECT_EQ(test, field(blk, "KernelPageSize:"), 4);
	KUNIT_EXPECT_EQ(test, field(blk, "Rss:"), (long)rss_pages * 4);
	KUNIT_EXPECT_EQ(test, field(blk, "Pss:"), (long)rss_pages * 4);
	KUNIT_EXPECT_EQ(test, field(blk, "Anonymous:"), (long)rss_pages * 4);
	KUNIT_EXPECT_EQ(test, field(blk, "AnonHugePages:"), (long)HPAGE_PMD_NR * 4);
	KUNIT_EXPECT_EQ(test, field(blk, "Private_Clean:") + field(blk, "Private_Dirty:"), (long)rss_pages * 4);
	KUNIT_EXPECT_EQ(test, field(blk, "Shared_Clean:") + field(blk, "Shared_Dirty:"), 0);
	KUNIT_EXPECT_EQ(test, field(blk, "Swap:"), 0);
	KUNIT_EXPECT_EQ(test, field(blk, "Locked:"), 0);
	KUNIT_EXPECT_TRUE(test, !strncmp(strstr(blk, "VmFlags: "), "VmFlags: rd wr mr mw me ", 24));
	/* The other VMAs: nothing touched in them yet. */
	snprintf(head, sizeof(head), "%08lx-%08lx r--p 00000000 00:00 0 \n", RO, RO + PAGE_SIZE);
	const char *ro = strstr(text, head);
	KUNIT_ASSERT_NOT_NULL(test, ro);
	KUNIT_EXPECT_EQ(test, field(ro, "Rss:"), 0);
	KUNIT_EXPECT_TRUE(test, !strncmp(strstr(ro, "VmFlags: "), "VmFlags: rd mr mw me \n", 22));

	/* The rollup sums every VMA, and equals the mm's own RSS counter. */
	const char *roll = test_proc_read(test, "/proc/self/smaps_rollup");
	snprintf(head, sizeof(head), "%08lx-%08lx ---p 00000000 00:00 0 ", BASE, RO + PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, !strncmp(roll, head, strlen(head)));
	KUNIT_EXPECT_EQ(test, strstr(roll, "[rollup]\n") - roll, 73);
	long sum = 0;
	for (const char *r = strstr(text, "\nRss:"); r; r = strstr(r + 1, "\nRss:"))
		sum += field(r, "Rss:");
	KUNIT_EXPECT_GE(test, sum, (long)rss_pages * 4); /* mincore wrote into VEC */
	KUNIT_EXPECT_EQ(test, field(roll, "Rss:"), sum);
	KUNIT_EXPECT_EQ(test, field(roll, "Rss:"), (long)get_mm_rss(s->mm) * 4);
	KUNIT_EXPECT_EQ(test, field(roll, "Pss_Anon:"), sum);
	KUNIT_EXPECT_EQ(test, field(roll, "Pss_File:"), 0);
	KUNIT_EXPECT_NULL(test, strstr(roll, "VmFlags"));
	KUNIT_EXPECT_NULL(test, strstr(text, "Pss_Anon"));
	test_proc_free(test, (char *)text);
	test_proc_free(test, (char *)roll);
	expect_counts_kept(test, s, "smaps");
}

/* ---- the cases ---- */

static enum pte_reclaim_mode saved_mode;
static void restore_mode_action(void *unused)
{
	(void)unused;
	if (pte_reclaim_set_mode(saved_mode))
		pr_err("walkers: pte_reclaim=%s could not be restored\n", pte_reclaim_mode_name(saved_mode));
}

/* Every reader over the same space, under mode. */
static void walkers_in_mode(struct kunit *test, enum pte_reclaim_mode mode)
{
	saved_mode = pte_reclaim_mode;
	int err = pte_reclaim_set_mode(mode);
	if (err)
		kunit_skip(test, "pte_reclaim=%s cannot be set now (%d)", pte_reclaim_mode_name(mode), err);
	/* Registered first, so it runs after the mm is gone however the case
	 * ends. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_mode_action, NULL), 0);
	struct space s;
	space_init(test, &s);
	expect_counts_kept(test, &s, "building the space");
	check_mincore(test, &s);
	check_pagemap(test, &s);
	check_smaps(test, &s);
	/* Tables emptied now (under refcount and scan, the first PMD's may go
	 * at once) read as holes to every reader. */
	mmap_read_lock(s.mm);
	zap_page_range(s.vma, BASE, SPAN);
	mmap_read_unlock(s.mm);
	unsigned char *vec = kzalloc(NPAGES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, vec);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, vec), 0);
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE, SPAN, (unsigned char *)VEC), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(vec, (void *)VEC, NPAGES), 0);
	unsigned long resident = 0;
	for (unsigned long i = 0; i < NPAGES; i++)
		resident += vec[i];
	KUNIT_EXPECT_EQ(test, resident, 0);
	u64 pme[8];
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, pme, sizeof(pme), PM_POS(BASE), NULL), (long)sizeof(pme));
	for (int i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, pme[i], 0);
	char *text = test_proc_read(test, "/proc/self/smaps");
	KUNIT_EXPECT_EQ(test, field(text, "Rss:"), 0);
	test_proc_free(test, text);
	kunit_release_action(test, kfree_action, vec);
	expect_counts_kept(test, &s, "the readers of emptied tables");
	space_destroy(test, &s);
	kunit_release_action(test, restore_mode_action, NULL);
	KUNIT_EXPECT_EQ(test, pte_reclaim_mode, saved_mode);
}

static void walkers_mode_off(struct kunit *test) { walkers_in_mode(test, PTE_RECLAIM_OFF); }
static void walkers_mode_scan(struct kunit *test) { walkers_in_mode(test, PTE_RECLAIM_SCAN); }
static void walkers_mode_refcount(struct kunit *test) { walkers_in_mode(test, PTE_RECLAIM_REFCOUNT); }

/* mincore's checks in Linux's order, and where it stops. */
static void mincore_errors(struct kunit *test)
{
	struct space s;
	space_init(test, &s);
	unsigned char *vec = (unsigned char *)VEC;
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE + 1, PAGE_SIZE, vec), -EINVAL);
	/* Unaligned start wins over a bad range and a bad vec. */
	KUNIT_EXPECT_EQ(test, ksys_mincore(TASK_SIZE + 1, PAGE_SIZE, NULL), -EINVAL);
	/* Beyond the user address space, or wrapping: -ENOMEM, before vec. */
	KUNIT_EXPECT_EQ(test, ksys_mincore(TASK_SIZE - PAGE_SIZE, 2 * PAGE_SIZE, vec), -ENOMEM);
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE, -BASE, (unsigned char *)TASK_SIZE), -ENOMEM);
	/* vec outside the user address space, or not writable: -EFAULT. */
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE, PAGE_SIZE, (unsigned char *)TASK_SIZE), -EFAULT);
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE, 2 * PAGE_SIZE, (unsigned char *)TASK_SIZE - 1), -EFAULT);
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE, PAGE_SIZE, (unsigned char *)RO), -EFAULT);
	/* Zero length: 0, whatever is (not) mapped there. */
	KUNIT_EXPECT_EQ(test, ksys_mincore(VEC - PAGE_SIZE, 0, vec), 0);
	/* Nothing mapped at start: -ENOMEM. */
	KUNIT_EXPECT_EQ(test, ksys_mincore(VEC - PAGE_SIZE, PAGE_SIZE, vec), -ENOMEM);
	/* A hole after the start: -ENOMEM, with the bytes of the mapped part
	 * written first, and nothing after them. A length that is not a page
	 * multiple counts its last part page. */
	unsigned char fill[4] = { 0xff, 0xff, 0xff, 0xff }, got[4];
	KUNIT_ASSERT_EQ(test, copy_to_user(vec, fill, 4), 0);
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE + SPAN - 2 * PAGE_SIZE, 3 * PAGE_SIZE + 1, vec), -ENOMEM);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, vec, 4), 0);
	KUNIT_EXPECT_EQ(test, got[0], 0);
	KUNIT_EXPECT_EQ(test, got[1], 0);
	KUNIT_EXPECT_EQ(test, got[2], 0xff);
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE, 2 * PAGE_SIZE - 1, vec), 0);
	KUNIT_ASSERT_EQ(test, copy_from_user(got, vec, 4), 0);
	KUNIT_EXPECT_EQ(test, got[0], 1);
	KUNIT_EXPECT_EQ(test, got[1], 1);
	KUNIT_EXPECT_EQ(test, got[2], 0xff);
	expect_counts_kept(test, &s, "mincore's errors");
	space_destroy(test, &s);
}

/* ---- readers racing faults and MADV_DONTNEED ---- */

#define RACE_ROUNDS 100
#define RACE_SPAN (2 * PMD_SIZE) /* two PTE tables, emptied every round */

struct racer {
	struct mm_struct *mm;
	volatile unsigned long round, done, errors;
};

/* On another CPU: write a few pages of each table, then give the whole
 * range back (under refcount both tables are freed then, under scan too:
 * the range covers them), RACE_ROUNDS times. */
static int racer_fn(struct test_worker *w)
{
	struct racer *r = w->crew->ctx;
	kthread_use_mm(r->mm);
	for (unsigned long round = 0; round < RACE_ROUNDS; round++) {
		for (unsigned long off = 0; off < RACE_SPAN; off += 64 * PAGE_SIZE) {
			unsigned char b = (unsigned char)round;
			if (copy_to_user((void *)(BASE + off), &b, 1))
				__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
		}
		if (do_madvise(r->mm, BASE, RACE_SPAN, MADV_DONTNEED))
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&r->round, round + 1, __ATOMIC_RELEASE);
		test_crew_progress(w);
	}
	kthread_unuse_mm(r->mm);
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* mincore, pagemap and smaps_rollup read the range over and over while
 * another CPU fills and empties its tables: every answer is one a page can
 * give (0 or 1; nothing, or present with a PFN and exclusive; an Rss no
 * larger than the pages written), nothing is leaked, and the counts are
 * whole at the end. Timing decides nothing: how many reads overlap which
 * round does not matter, only that each is a possible answer. */
static void walkers_race_faults_and_dontneed(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	static struct racer r;
	static struct test_crew c;
	memset((void *)&r, 0, sizeof(r));
	r.mm = test_mm_create(test, TEST_MM_CURRENT);
	unsigned long flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	KUNIT_ASSERT_EQ(test, do_mmap(r.mm, BASE, RACE_SPAN, RW, flags), BASE);
	KUNIT_ASSERT_EQ(test, do_mmap(r.mm, VEC, PMD_SIZE, RW, flags), VEC);
	const unsigned long npages = RACE_SPAN >> PAGE_SHIFT;
	const unsigned long written = RACE_SPAN / (64 * PAGE_SIZE);
	unsigned char *vec = kmalloc(npages, GFP_KERNEL);
	u64 *pme = kmalloc(npages * 8, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, vec), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kfree_action, pme), 0);
	KUNIT_ASSERT_NOT_NULL(test, vec);
	KUNIT_ASSERT_NOT_NULL(test, pme);

	test_crew_start(test, &c, racer_fn, (void *)&r, 1, TEST_CREW_OTHER_CPUS);
	unsigned long reads = 0, bad_mincore = 0, bad_pagemap = 0, bad_rss = 0, errors = 0;
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) {
		if (ksys_mincore(BASE, RACE_SPAN, (unsigned char *)VEC) ||
		    copy_from_user(vec, (void *)VEC, npages))
			errors++;
		else
			for (unsigned long i = 0; i < npages; i++)
				bad_mincore += vec[i] > 1 || (vec[i] && i % 64);
		if (pagemap_pread(test, pme, npages * 8, PM_POS(BASE), NULL) != (long)(npages * 8))
			errors++;
		else
			for (unsigned long i = 0; i < npages; i++)
				bad_pagemap += pme[i] && (i % 64 || !(pme[i] & PM_PRESENT) ||
							  !(pme[i] & PM_PFRAME_MASK) || !(pme[i] & PM_MMAP_EXCLUSIVE));
		char *text;
		size_t len;
		if (procfs_generate("/proc/self/smaps_rollup", current, &text, &len)) {
			errors++;
		} else {
			/* The range's pages at most, and VEC's page. */
			bad_rss += field(text, "Rss:") > (long)(written + 1) * 4;
			kvfree(text);
		}
		reads++;
		cond_resched();
	}
	KUNIT_EXPECT_EQ(test, test_crew_finish(test, &c), 0);
	kunit_info(test, "%lu rounds of the racer, %lu reads of each file beside them\n",
		   (unsigned long)r.round, reads);
	KUNIT_EXPECT_EQ(test, r.round, RACE_ROUNDS);
	KUNIT_EXPECT_EQ(test, r.errors, 0);
	KUNIT_EXPECT_EQ(test, errors, 0);
	KUNIT_EXPECT_EQ(test, bad_mincore, 0);
	KUNIT_EXPECT_EQ(test, bad_pagemap, 0);
	KUNIT_EXPECT_EQ(test, bad_rss, 0);
	KUNIT_EXPECT_GT(test, reads, 0);
	unsigned long bad = pte_ref_verify(r.mm);
	KUNIT_EXPECT_EQ(test, bad, 0);
	kunit_release_action(test, kfree_action, vec);
	kunit_release_action(test, kfree_action, pme);
	test_mm_destroy(test, r.mm); /* page-table pages, pages and slab objects back */
}

/* A task without an mm (this kernel thread): no VMA to show, no rollup
 * (Linux's show_smaps_rollup: -ESRCH), no entry to read (Linux's
 * pagemap_read returns 0 without an mm), no mincore. */
static void readers_without_mm(struct kunit *test)
{
	KUNIT_ASSERT_NULL(test, current->mm);
	char *smaps = test_proc_read(test, "/proc/self/smaps");
	KUNIT_EXPECT_STREQ(test, smaps, "");
	char *buf;
	size_t len;
	KUNIT_EXPECT_EQ(test, procfs_generate("/proc/self/smaps_rollup", current, &buf, &len), -ESRCH);
	u64 pme = 1;
	KUNIT_EXPECT_EQ(test, pagemap_pread(test, &pme, 8, PM_POS(BASE), NULL), 0);
	KUNIT_EXPECT_EQ(test, pme, 1);
	KUNIT_EXPECT_EQ(test, ksys_mincore(BASE, PAGE_SIZE, (unsigned char *)VEC), -ENOMEM);
}

static struct kunit_case walkers_cases[] = {
	KUNIT_CASE(readers_without_mm),
	KUNIT_CASE(walkers_mode_off),
	KUNIT_CASE(walkers_mode_scan),
	KUNIT_CASE(walkers_mode_refcount),
	KUNIT_CASE(mincore_errors),
	KUNIT_CASE(walkers_race_faults_and_dontneed),
	{},
};

static struct kunit_suite walkers_suite = {
	.name = "walkers",
	.test_cases = walkers_cases,
};
kunit_test_suite(walkers_suite);
