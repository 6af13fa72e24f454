/* Tests of the page-table walk and its rules (mm/pgtable.h): what
 * pte_offset_map and pte_alloc answer for a none, a huge and a table PMD,
 * range stepping at the top of the address space, the huge-PMD rule of
 * teardown and faults, and the mmu_gather's table batch. A huge PMD is made
 * by hand (there is no THP yet): an order-9 page, mapped and counted as a
 * fault would count it.
 *
 * Each case checks that the pages and slab objects it used come back. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/uaccess.h"
#include "lib/list.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/unistd.h"
#include "mm/huge_memory.h"
#include "mm/memory.h"
#include "mm/mmap.h"
#include "mm/mmu_gather.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

#define BASE 0x0000300000000000ul /* a PGD entry of its own */
#define RW (PROT_READ | PROT_WRITE)

struct space {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
};

/* An mm with one private anonymous VMA [BASE, BASE + size), made the
 * current task's if use: the fixture of tests/test_mm.h, whose cleanup
 * runs however the case ends and checks that everything came back. */
static void space_init(struct kunit *test, struct space *s, unsigned long size, bool use)
{
	s->mm = test_mm_create(test, use ? TEST_MM_CURRENT : 0);
	s->vma = test_mm_map_anon(test, s->mm, BASE, size);
}

static void space_destroy(struct kunit *test, struct space *s) { test_mm_destroy(test, s->mm); }

/* The PMD for addr, with the tables above it allocated. */
static pmd_t *pmd_for(struct kunit *test, struct mm_struct *mm, unsigned long addr)
{
	pud_t *pud = pud_alloc(mm, pgd_offset(mm, addr), addr);
	KUNIT_ASSERT_NOT_NULL(test, pud);
	pmd_t *pmd = pmd_alloc(mm, pud, addr);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	return pmd;
}

/* Maps an order-9 page with a huge PMD at addr (2 MiB aligned, none before)
 * under the VMA's protection minus clear_bits, counted as mapped and with
 * its deposited PTE table (map_anon_folio_pmd); its first word holds addr. */
static struct page *map_huge(struct kunit *test, struct space *s, unsigned long addr,
			     u64 clear_bits)
{
	pmd_t *pmd = pmd_for(test, s->mm, addr);
	KUNIT_ASSERT_TRUE(test, pmd_none(pmdp_get(pmd)));
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_ZERO, HPAGE_PMD_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, page);
	*(u64 *)page_address(page) = addr;
	/* As the THP fault maps one: a PTE table deposited beside it. */
	KUNIT_ASSERT_EQ(test, map_anon_folio_pmd(find_vma(s->mm, addr), pmd, addr, page, clear_bits), 0);
	return page;
}

static void pte_offset_map_sees_no_table_in_none_or_huge_pmd(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 4 * PMD_SIZE, false);
	pmd_t *none = pmd_for(test, s.mm, BASE);
	spinlock_t *ptl = NULL;
	KUNIT_EXPECT_NULL(test, pte_offset_map(none, BASE));
	KUNIT_EXPECT_NULL(test, pte_offset_map_lock(s.mm, none, BASE, &ptl));
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&s.mm->page_table_lock));

	map_huge(test, &s, BASE + PMD_SIZE, 0);
	pmd_t *huge = mm_find_pmd(s.mm, BASE + PMD_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, huge);
	KUNIT_EXPECT_NULL(test, pte_offset_map(huge, BASE + PMD_SIZE + PAGE_SIZE));
	KUNIT_EXPECT_NULL(test, pte_offset_map_lock(s.mm, huge, BASE + PMD_SIZE, &ptl));
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&s.mm->page_table_lock));
	KUNIT_EXPECT_NULL(test, pte_alloc_map(s.mm, huge, BASE + PMD_SIZE));
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1); /* its deposited table; nothing installed over it */

	/* A table: the PTE of addr, with the table's lock held. */
	KUNIT_ASSERT_EQ(test, handle_mm_fault(s.vma, BASE + 3 * PAGE_SIZE, FAULT_FLAG_WRITE), 0);
	pte_t *pte = pte_offset_map_lock(s.mm, none, BASE + 3 * PAGE_SIZE, &ptl);
	KUNIT_ASSERT_NOT_NULL(test, pte);
	KUNIT_EXPECT_PTR_EQ(test, ptl, pte_lockptr(s.mm, none));
	KUNIT_EXPECT_TRUE(test, spin_is_locked(ptl));
	KUNIT_EXPECT_TRUE(test, pte_present(ptep_get(pte)));
	KUNIT_EXPECT_PTR_EQ(test, pte_offset_map(none, BASE) + 3, pte);
	pte_unmap_unlock(pte, ptl);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&s.mm->page_table_lock));
	space_destroy(test, &s);
}

/* Range stepping must stop at end even where the next boundary wraps to 0
 * (the last PMD, PUD and PGD entry of the address space). */
static void addr_end_steps_to_the_top_of_the_address_space(struct kunit *test)
{
	const unsigned long top = 0xfffffffffffff000ul;
	KUNIT_EXPECT_EQ(test, pmd_addr_end(BASE + PAGE_SIZE, BASE + 3 * PMD_SIZE), BASE + PMD_SIZE);
	KUNIT_EXPECT_EQ(test, pmd_addr_end(BASE, BASE + PAGE_SIZE), BASE + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, pud_addr_end(BASE, BASE + 3 * PUD_SIZE), BASE + PUD_SIZE);
	KUNIT_EXPECT_EQ(test, pgd_addr_end(BASE, ~0ul), BASE + PGDIR_SIZE);
	KUNIT_EXPECT_EQ(test, pmd_addr_end(top & PMD_MASK, top), top);
	KUNIT_EXPECT_EQ(test, pud_addr_end(top & PUD_MASK, top), top);
	KUNIT_EXPECT_EQ(test, pgd_addr_end(top & PGDIR_MASK, top), top);
	KUNIT_EXPECT_EQ(test, pmd_addr_end((top & PMD_MASK) - PMD_SIZE, top), top & PMD_MASK);
	/* end 0 is the top of the address space: the boundary comes first. */
	KUNIT_EXPECT_EQ(test, pmd_addr_end(top & PMD_MASK, 0), 0);
	KUNIT_EXPECT_EQ(test, pmd_addr_end((top & PMD_MASK) - PMD_SIZE, 0), top & PMD_MASK);
	/* A walk over the last PMD of the user half ends (and finds nothing). */
	struct space s;
	space_init(test, &s, PAGE_SIZE, false);
	KUNIT_EXPECT_EQ(test, change_protection(s.vma, TASK_SIZE - PMD_SIZE, TASK_SIZE,
						vm_get_page_prot(VM_READ)), 0);
	space_destroy(test, &s);
}

/* Takes every free page (highest orders first) into held, so that the next
 * GFP_KERNEL allocation fails; returns the pages taken. */
static unsigned long exhaust_memory(struct list_head *held)
{
	unsigned long n = 0;
	for (int order = MAX_PAGE_ORDER; order >= 0; order--) {
		gfp_t gfp = GFP_KERNEL | __GFP_NOWARN | __GFP_UNTOUCHED | (order ? __GFP_NORETRY : 0);
		struct page *p;
		while ((p = alloc_pages(gfp, (unsigned)order))) {
			p->private = (unsigned long)order;
			list_add(&p->lru, held);
			n += 1ul << order;
		}
	}
	return n;
}

static void release_memory(struct list_head *held)
{
	while (!list_empty(held)) {
		struct page *p = list_first_entry(held, struct page, lru);
		list_del(&p->lru);
		unsigned order = (unsigned)p->private;
		if (!order)
			p->private = 0;
		__free_pages(p, order);
	}
}

/* pte_alloc has three answers and the fault path keeps them apart: no
 * memory is -ENOMEM and VM_FAULT_OOM; a huge PMD is INSTALLED_HUGE_PMD and
 * never OOM (pte_alloc_walk used to give NULL for both, and the fault
 * path made both OOM). */
static void pte_alloc_tells_no_memory_from_huge_pmd(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 4 * PMD_SIZE, false);
	pmd_t *none = pmd_for(test, s.mm, BASE);
	map_huge(test, &s, BASE + PMD_SIZE, _PAGE_RW);
	pmd_t *huge = mm_find_pmd(s.mm, BASE + PMD_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, huge);

	/* Nothing but the PTE table can fail below: its PMD exists. */
	static char captured[4096];
	struct printk_capture cap;
	LIST_HEAD(held);
	printk_capture_begin(&cap, captured, sizeof(captured));
	unsigned long taken = exhaust_memory(&held);
	int none_ret = pte_alloc(s.mm, none);
	int huge_ret = pte_alloc(s.mm, huge);
	vm_fault_t oom = handle_mm_fault(s.vma, BASE, FAULT_FLAG_WRITE);
	vm_fault_t huge_read = handle_mm_fault(s.vma, BASE + PMD_SIZE, 0);
	vm_fault_t huge_write = handle_mm_fault(s.vma, BASE + PMD_SIZE, FAULT_FLAG_WRITE);
	release_memory(&held);
	printk_capture_end(&cap);

	KUNIT_EXPECT_GT(test, taken, 0);
	KUNIT_EXPECT_EQ(test, none_ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, huge_ret, INSTALLED_HUGE_PMD);
	KUNIT_EXPECT_EQ(test, oom, VM_FAULT_OOM);
	/* The huge PMD allows reads: spurious. A write to it (read-only, in
	 * a writable VMA) reuses the THP, which nothing else holds (Linux's
	 * do_huge_pmd_wp_page): no memory needed. */
	KUNIT_EXPECT_EQ(test, huge_read, 0);
	KUNIT_EXPECT_EQ(test, huge_write, 0);
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmdp_get(huge)) && pmd_write(pmdp_get(huge)));
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1); /* the huge PMD's deposited table */
	/* With memory back, the same call installs the table. */
	KUNIT_EXPECT_EQ(test, pte_alloc(s.mm, none), INSTALLED_PTE);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 2);
	KUNIT_EXPECT_EQ(test, handle_mm_fault(s.vma, BASE, FAULT_FLAG_WRITE), 0);
	/* pte_alloc's reference (refcount mode: mm/pte_ref.h); the entry
	 * the fault made keeps the table. */
	pte_put(s.mm, none, BASE);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 2);
	space_destroy(test, &s);
}

/* MADV_POPULATE_WRITE keeps the same three answers apart (Linux's
 * vm_fault_to_errno): a huge PMD the fault refuses (PROT_NONE under a VMA
 * that allows the access: the huge-PMD rule's SIGSEGV) is -EFAULT, and
 * only memory running short is -ENOMEM; it used to give -ENOMEM for both.
 * A read-only huge PMD of a writable VMA is made writable (the THP is
 * reused), which needs no memory. */
static void populate_tells_no_memory_from_huge_pmd(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 4 * PMD_SIZE, false);
	map_huge(test, &s, BASE + PMD_SIZE, _PAGE_RW);
	/* Reading it is fine: the huge PMD allows reads. */
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + PMD_SIZE, PMD_SIZE, MADV_POPULATE_READ), 0);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + PMD_SIZE, PAGE_SIZE, MADV_POPULATE_WRITE), 0);
	pmd_t *huge = mm_find_pmd(s.mm, BASE + PMD_SIZE);
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmdp_get(huge)) && pmd_write(pmdp_get(huge)));
	change_protection(s.vma, BASE + PMD_SIZE, BASE + 2 * PMD_SIZE, vm_get_page_prot(VM_NONE));
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + PMD_SIZE, PAGE_SIZE, MADV_POPULATE_WRITE), -EFAULT);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + PMD_SIZE, PAGE_SIZE, MADV_POPULATE_READ), -EFAULT);

	static char captured[4096];
	struct printk_capture cap;
	LIST_HEAD(held);
	printk_capture_begin(&cap, captured, sizeof(captured));
	exhaust_memory(&held);
	int oom = do_madvise(s.mm, BASE + 2 * PMD_SIZE, PAGE_SIZE, MADV_POPULATE_WRITE);
	release_memory(&held);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, oom, -ENOMEM);
	KUNIT_EXPECT_EQ(test, do_madvise(s.mm, BASE + 2 * PMD_SIZE, PAGE_SIZE, MADV_POPULATE_WRITE), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), HPAGE_PMD_NR + 1);
	space_destroy(test, &s);
}

/* The bug this guards against: teardown skipped huge PMDs, then
 * free_pgtables freed the order-9 page as a PTE table ("Bad page state ...
 * wrong order", VmPTE negative, 512 pages leaked). munmap and exit must
 * each give the page and its deposited table back, uncounted; a
 * MADV_DONTNEED of part of it splits it (the deposited table becomes its
 * PTE table), and only that part goes. */
static void huge_pmd_teardown_frees_its_page(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 4 * PMD_SIZE, true);
	long anon_before = (long)nr_anon_pages();
	unsigned long tables_before = nr_user_pagetable_pages();
	map_huge(test, &s, BASE, 0);
	map_huge(test, &s, BASE + 2 * PMD_SIZE, 0);
	map_huge(test, &s, BASE + 3 * PMD_SIZE, 0);
	KUNIT_EXPECT_EQ(test, put_user_u64(7, (void *)(BASE + PMD_SIZE)), 0); /* a PTE table */
	u64 v = 0;
	KUNIT_EXPECT_EQ(test, get_user_u64(&v, (void *)(BASE + 2 * PMD_SIZE)), 0);
	KUNIT_EXPECT_EQ(test, v, BASE + 2 * PMD_SIZE); /* the huge PMD maps it */
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 3 * HPAGE_PMD_NR + 1);
	/* PUD, PMD, PTE, and the three deposited tables */
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, 6 * (long)PAGE_SIZE);
	unsigned long splits_before = all_vm_events(THP_SPLIT_PMD);

	static char captured[2048];
	struct printk_capture cap;
	printk_capture_begin(&cap, captured, sizeof(captured));
	/* munmap of the first: a neighbour (the rest of the VMA) keeps the PMD table. */
	int unmapped = do_munmap(s.mm, BASE, PMD_SIZE);
	unsigned long rss_after_munmap = get_mm_rss(s.mm);
	long bytes_after_munmap = s.mm->pgtables_bytes;
	/* MADV_DONTNEED of one page of the second: split, that page goes. */
	int advised = do_madvise(s.mm, BASE + 2 * PMD_SIZE + PAGE_SIZE, PAGE_SIZE, MADV_DONTNEED);
	unsigned long rss_after_dontneed = get_mm_rss(s.mm);
	pmd_t after_dontneed = pmdp_get(mm_find_pmd(s.mm, BASE + 2 * PMD_SIZE));
	long bytes_after_dontneed = s.mm->pgtables_bytes;
	v = 0;
	int read_back = get_user_u64(&v, (void *)(BASE + 2 * PMD_SIZE));
	/* Exit with the third still mapped. */
	test_mm_unuse(test, s.mm);
	struct mm_struct *mm = s.mm;
	exit_mmap(mm); /* what mmput does, with the mm kept to read its counters */
	long pgtables_at_exit = mm->pgtables_bytes;
	unsigned long rss_at_exit = get_mm_rss(mm);
	printk_capture_end(&cap);

	KUNIT_EXPECT_EQ(test, unmapped, 0);
	KUNIT_EXPECT_EQ(test, rss_after_munmap, 2 * HPAGE_PMD_NR + 1);
	KUNIT_EXPECT_EQ(test, bytes_after_munmap, 5 * (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, advised, 0);
	KUNIT_EXPECT_EQ(test, rss_after_dontneed, 2 * HPAGE_PMD_NR);
	KUNIT_EXPECT_FALSE(test, pmd_none(after_dontneed) || pmd_trans_huge(after_dontneed));
	KUNIT_EXPECT_EQ(test, bytes_after_dontneed, 5 * (long)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, read_back, 0);
	KUNIT_EXPECT_EQ(test, v, BASE + 2 * PMD_SIZE); /* the rest of the page stayed */
	KUNIT_EXPECT_EQ(test, all_vm_events(THP_SPLIT_PMD), splits_before + 1);
	KUNIT_EXPECT_EQ(test, rss_at_exit, 0);
	KUNIT_EXPECT_EQ(test, pgtables_at_exit, 0);
	KUNIT_EXPECT_EQ(test, mm->nr_ptes, 0);
	KUNIT_EXPECT_EQ(test, (long)nr_anon_pages(), anon_before);
	KUNIT_EXPECT_EQ(test, nr_user_pagetable_pages(), tables_before);
	KUNIT_EXPECT_NULL(test, strstr(captured, "Bad page state"));
	KUNIT_EXPECT_NULL(test, strstr(captured, "BUG"));
	space_destroy(test, &s);
}

/* free_pgtables never frees a huge PMD's page as a PTE table, even when
 * the caller skipped the zap: it reports the leftover mapping and zaps it. */
static void free_pgtables_zaps_a_leftover_huge_pmd(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 2 * PMD_SIZE, false);
	map_huge(test, &s, BASE, 0);
	static char captured[1024];
	struct printk_capture cap;
	struct mmu_gather tlb;
	printk_capture_begin(&cap, captured, sizeof(captured));
	tlb_gather_mmu(&tlb, s.mm);
	free_pgd_range(&tlb, BASE, BASE + 2 * PMD_SIZE, 0, 0);
	unsigned long queued = tlb.nr, tables = tlb.nr_tables;
	tlb_finish_mmu(&tlb);
	printk_capture_end(&cap);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "still mapped when its tables are freed"));
	KUNIT_EXPECT_NULL(test, strstr(captured, "Bad page state"));
	KUNIT_EXPECT_EQ(test, queued, 1);  /* the huge page, as data */
	KUNIT_EXPECT_EQ(test, tables, 2);  /* the PMD and PUD tables */
	KUNIT_EXPECT_EQ(test, tlb.nr_freed, HPAGE_PMD_NR);
	KUNIT_EXPECT_EQ(test, tlb.nr_tables_freed, 2);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, 0);
	space_destroy(test, &s);
}

/* Page-table pages wait in a batch of their own and are freed only after
 * the flush (and, as every reachable page table, after an RCU grace period). */
static void gather_frees_tables_only_after_the_flush(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 2 * PMD_SIZE, false);
	KUNIT_ASSERT_EQ(test, handle_mm_fault(s.vma, BASE, FAULT_FLAG_WRITE), 0);
	KUNIT_ASSERT_EQ(test, handle_mm_fault(s.vma, BASE + PMD_SIZE, FAULT_FLAG_WRITE), 0);
	pmd_t *pmd0 = mm_find_pmd(s.mm, BASE), *pmd1 = mm_find_pmd(s.mm, BASE + PMD_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, pmd0);
	struct page *pte0 = virt_to_page(pte_offset_map(pmd0, BASE));
	struct page *pte1 = virt_to_page(pte_offset_map(pmd1, BASE + PMD_SIZE));
	struct page *pmd_table = virt_to_page(pmd0);

	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, s.mm);
	unmap_page_range(&tlb, s.vma, BASE, BASE + 2 * PMD_SIZE);
	free_pgd_range(&tlb, BASE, BASE + 2 * PMD_SIZE, 0, 0);
	KUNIT_EXPECT_EQ(test, tlb.nr, 2);        /* the two data pages */
	KUNIT_EXPECT_EQ(test, tlb.nr_tables, 4); /* two PTE tables, the PMD and PUD tables */
	KUNIT_EXPECT_TRUE(test, tlb.freed_tables);
	KUNIT_EXPECT_EQ(test, tlb.nr_flushes, 0);
	KUNIT_EXPECT_EQ(test, tlb.nr_tables_freed, 0);
	/* Unlinked and uncounted, but not freed: a CPU may still walk them. */
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, 0);
	KUNIT_EXPECT_TRUE(test, PageTable(pte0) && PageTable(pte1) && PageTable(pmd_table));
	KUNIT_EXPECT_EQ(test, page_ref_count(pte0), 1);
	KUNIT_EXPECT_EQ(test, page_ref_count(pmd_table), 1);
	tlb_finish_mmu(&tlb);
	KUNIT_EXPECT_EQ(test, tlb.nr_flushes, 1);
	KUNIT_EXPECT_EQ(test, tlb.nr_freed, 2);
	KUNIT_EXPECT_EQ(test, tlb.nr_tables_freed, 4);
	space_destroy(test, &s);
}

/* change_protection on a huge PMD: the whole PMD takes the protection; a
 * range over part of it splits it, and only that part changes. */
static void change_protection_of_a_huge_pmd(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 2 * PMD_SIZE, false);
	map_huge(test, &s, BASE, 0);
	KUNIT_EXPECT_EQ(test, change_protection(s.vma, BASE, BASE + PMD_SIZE, vm_get_page_prot(VM_READ)),
			HPAGE_PMD_NR);
	pmd_t *pmd = mm_find_pmd(s.mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(pmdp_get(pmd)));
	KUNIT_EXPECT_FALSE(test, pmd_write(pmdp_get(pmd)));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), HPAGE_PMD_NR);
	unsigned long pfn = pmd_pfn(pmdp_get(pmd));
	static char captured[512];
	struct printk_capture cap;
	printk_capture_begin(&cap, captured, sizeof(captured));
	KUNIT_EXPECT_EQ(test, change_protection(s.vma, BASE, BASE + PAGE_SIZE, vm_get_page_prot(VM_READ | VM_WRITE)),
			1ul);
	printk_capture_end(&cap);
	KUNIT_EXPECT_NULL(test, strstr(captured, "BUG"));
	pmd_t split = pmdp_get(pmd);
	KUNIT_ASSERT_FALSE(test, pmd_none(split) || pmd_trans_huge(split));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), HPAGE_PMD_NR);
	pte_t *pte = pte_offset_map(pmd, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pte);
	/* The same pages, one by one: the first writable, the rest not. */
	KUNIT_EXPECT_EQ(test, pte_pfn(ptep_get(pte)), pfn);
	KUNIT_EXPECT_TRUE(test, pte_write(ptep_get(pte)));
	KUNIT_EXPECT_EQ(test, pte_pfn(ptep_get(pte + 511)), pfn + 511);
	KUNIT_EXPECT_FALSE(test, pte_write(ptep_get(pte + 1)));
	pte_unmap(pte);
	if (pte_ref_enabled())
		KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), (int)HPAGE_PMD_NR);
	/* A write to a read-only one (the VMA is writable): its page is
	 * reused, as any private anonymous page of one mapping. */
	KUNIT_EXPECT_EQ(test, handle_mm_fault(s.vma, BASE + PAGE_SIZE, FAULT_FLAG_WRITE), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), HPAGE_PMD_NR);
	space_destroy(test, &s);
}

/* mprotect(PROT_NONE) of a huge PMD takes _PAGE_PRESENT away and keeps
 * _PAGE_PSE (pmd_modify): the PMD still maps its 2 MiB page, and every
 * walker must go on treating it so. It used to count as a PTE table (the
 * huge-PMD test wanted _PAGE_PRESENT): the page's data read as PTEs by
 * zap, change_protection and faults, and the page freed as a table. */
static void prot_none_huge_pmd_stays_huge(struct kunit *test)
{
	struct space s;
	space_init(test, &s, 2 * PMD_SIZE, false);
	map_huge(test, &s, BASE, 0);
	pmd_t *pmd = mm_find_pmd(s.mm, BASE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	pmd_t huge = pmdp_get(pmd);
	KUNIT_EXPECT_EQ(test, change_protection(s.vma, BASE, BASE + PMD_SIZE, vm_get_page_prot(VM_NONE)),
			HPAGE_PMD_NR);
	pmd_t prot_none = pmdp_get(pmd);
	KUNIT_EXPECT_FALSE(test, pmd_accessible(prot_none));
	KUNIT_EXPECT_EQ(test, pmd_pfn(prot_none), pmd_pfn(huge));
	pte_t *table = pte_offset_map(pmd, BASE);
	KUNIT_EXPECT_NULL(test, table);
	if (table) {
		/* Taken for a PTE table: put the huge PMD back, so that the
		 * cleanup does not free the page's data as PTEs. */
		set_pmd(pmd, huge);
		space_destroy(test, &s);
		return;
	}
	KUNIT_EXPECT_TRUE(test, pmd_trans_huge(prot_none));
	KUNIT_EXPECT_TRUE(test, pmd_present(prot_none));
	KUNIT_EXPECT_EQ(test, pte_alloc(s.mm, pmd), INSTALLED_HUGE_PMD);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1); /* the deposited table alone */
	/* The VMA (still read-write here) lets the access through; the PMD
	 * refuses it, as a PROT_NONE PTE would. */
	KUNIT_EXPECT_EQ(test, handle_mm_fault(s.vma, BASE + PAGE_SIZE, 0), VM_FAULT_SIGSEGV);
	/* Back to read-write: the same page, accessible again. */
	KUNIT_EXPECT_EQ(test, change_protection(s.vma, BASE, BASE + PMD_SIZE, s.vma->vm_page_prot),
			HPAGE_PMD_NR);
	KUNIT_EXPECT_TRUE(test, pmd_accessible(pmdp_get(pmd)) && pmd_write(pmdp_get(pmd)));
	KUNIT_EXPECT_EQ(test, pmd_pfn(pmdp_get(pmd)), pmd_pfn(huge));
	/* PROT_NONE again, then munmap: the page goes back as data. */
	change_protection(s.vma, BASE, BASE + PMD_SIZE, vm_get_page_prot(VM_NONE));
	static char captured[1024];
	struct printk_capture cap;
	printk_capture_begin(&cap, captured, sizeof(captured));
	int unmapped = do_munmap(s.mm, BASE, PMD_SIZE);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, unmapped, 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0);
	KUNIT_EXPECT_TRUE(test, pmd_none(pmdp_get(pmd)));
	KUNIT_EXPECT_NULL(test, strstr(captured, "Bad page state"));
	KUNIT_EXPECT_NULL(test, strstr(captured, "BUG"));
	space_destroy(test, &s);
}

static struct kunit_case pgtable_cases[] = {
	KUNIT_CASE(pte_offset_map_sees_no_table_in_none_or_huge_pmd),
	KUNIT_CASE(addr_end_steps_to_the_top_of_the_address_space),
	KUNIT_CASE(pte_alloc_tells_no_memory_from_huge_pmd),
	KUNIT_CASE(populate_tells_no_memory_from_huge_pmd),
	KUNIT_CASE(huge_pmd_teardown_frees_its_page),
	KUNIT_CASE(free_pgtables_zaps_a_leftover_huge_pmd),
	KUNIT_CASE(gather_frees_tables_only_after_the_flush),
	KUNIT_CASE(change_protection_of_a_huge_pmd),
	KUNIT_CASE(prot_none_huge_pmd_stays_huge),
	{}
};

static struct kunit_suite pgtable_suite = {
	.name = "pgtable",
	.test_cases = pgtable_cases,
};
kunit_test_suite(pgtable_suite);
