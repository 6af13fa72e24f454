/* Tests of user memory (faults in mm/memory.c, teardown in mm/teardown.c,
 * change_protection) and the mmu_gather, on
 * address spaces the test builds itself: one VMA from do_mmap, faults
 * resolved by calling handle_mm_fault as the fault handler would, user
 * memory reached through copy_*_user with the mm loaded as the current
 * task's. */
#include "tests/kunit.h"
#include "tests/test_mm.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/pgtable.h"
#include "arch/x86_64/tlb.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "kernel/smp.h"
#include "kernel/wait.h"
#include "mm/memory.h"
#include "kernel/unistd.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_gather.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"

#define BASE 0x0000100000000000ul /* a PGD entry of its own */

struct test_space {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
};

/* Makes an mm with one VMA [BASE, BASE + size) of private anonymous
 * read-write memory and makes it the current task's (so faults and user
 * copies go to it): the fixture of tests/test_mm.h, whose cleanup runs
 * however the case ends and checks that everything came back. */
static void space_init(struct kunit *test, struct test_space *s, unsigned long size)
{
	s->mm = test_mm_create(test, TEST_MM_CURRENT);
	s->vma = test_mm_map_anon(test, s->mm, BASE, size);
}

/* The PTE for addr, or NULL when no PTE table covers it. The tests keep the
 * pointer while they look (pte_unmap is nothing, and nothing frees the
 * table meanwhile). */
static pte_t *lookup_pte(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);
	return pmd ? pte_offset_map(pmd, addr) : NULL;
}

/* Unmaps everything, frees the tables over the whole user half (the
 * teardown under test), then drops the mm. */
static void space_destroy(struct kunit *test, struct test_space *s)
{
	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, s->mm);
	unmap_page_range(&tlb, s->vma, s->vma->vm_start, s->vma->vm_end);
	free_pgd_range(&tlb, s->vma->vm_start, s->vma->vm_end, 0, 0);
	tlb_finish_mmu(&tlb);
	test_mm_destroy(test, s->mm);
}

/* A page-table page that was never installed. */
static void free_table_action(void *page) { pte_free(NULL, page); }

/* __pte_alloc and pmd_install say what the PMD holds instead of making the
 * caller read it again (the 2021 series' interface change). */
static void pmd_install_reports_what_it_found(struct kunit *test)
{
	struct test_space s;
	space_init(test, &s, 4 * PMD_SIZE);
	/* The upper levels, then the first PTE table. */
	pud_t *pud = pud_alloc(s.mm, pgd_offset(s.mm, BASE), BASE);
	KUNIT_ASSERT_NOT_NULL(test, pud);
	pmd_t *first = pmd_alloc(s.mm, pud, BASE);
	KUNIT_ASSERT_NOT_NULL(test, first);
	KUNIT_ASSERT_EQ(test, pte_alloc(s.mm, first), INSTALLED_PTE);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, 3 * (long)PAGE_SIZE); /* PUD, PMD, PTE */

	pmd_t *pmd = mm_find_pmd(s.mm, BASE + PMD_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, pmd);
	KUNIT_EXPECT_TRUE(test, pmd_none(*pmd));
	KUNIT_EXPECT_EQ(test, __pte_alloc(s.mm, pmd), INSTALLED_PTE);
	KUNIT_EXPECT_FALSE(test, pmd_none(*pmd));
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 2);

	/* Someone else installed first: the caller's table is not used. */
	struct page *spare = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	page_set_flag(spare, PG_table);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, free_table_action, spare), 0);
	struct page *mine = spare;
	KUNIT_EXPECT_EQ(test, pmd_install(s.mm, pmd, &mine), INSTALLED_PTE);
	KUNIT_EXPECT_PTR_EQ(test, mine, spare);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 2);

	/* A PMD that maps a huge page: no PTE table to walk. */
	pmd_t *huge = mm_find_pmd(s.mm, BASE + 2 * PMD_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, huge);
	set_pmd(huge, __pmd(0x40000000ul | _PAGE_PRESENT | _PAGE_PSE | _PAGE_USER));
	KUNIT_EXPECT_EQ(test, pmd_install(s.mm, huge, &mine), INSTALLED_HUGE_PMD);
	KUNIT_EXPECT_PTR_EQ(test, mine, spare);
	KUNIT_EXPECT_EQ(test, pte_alloc(s.mm, huge), INSTALLED_HUGE_PMD);
	KUNIT_EXPECT_NULL(test, pte_alloc_map(s.mm, huge, BASE + 2 * PMD_SIZE));
	KUNIT_EXPECT_NULL(test, lookup_pte(s.mm, BASE + 2 * PMD_SIZE));
	pmd_clear(huge);
	kunit_release_action(test, free_table_action, spare);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 2);
	/* In refcount mode each INSTALLED_PTE came with a reference (the
	 * series' patch 07): the first table holds pte_alloc's, the second
	 * __pte_alloc's and pmd_install's. Their last puts free the empty
	 * tables; in the other modes the puts are nothing and
	 * free_pgd_range frees them. */
	if (pte_ref_enabled()) {
		KUNIT_EXPECT_EQ(test, pte_ref_count(first), 1);
		KUNIT_EXPECT_EQ(test, pte_ref_count(pmd), 2);
		pte_put(s.mm, first, BASE);
		KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1);
		pte_put(s.mm, pmd, BASE + PMD_SIZE);
		KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1);
		pte_put(s.mm, pmd, BASE + PMD_SIZE);
		KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 0);
		KUNIT_EXPECT_TRUE(test, pmd_none(*first));
		KUNIT_EXPECT_TRUE(test, pmd_none(*pmd));
	}
	space_destroy(test, &s);
}

static void read_fault_maps_the_zero_page(struct kunit *test)
{
	struct test_space s;
	space_init(test, &s, PMD_SIZE);
	KUNIT_EXPECT_EQ(test, handle_mm_fault(s.vma, BASE + 5 * PAGE_SIZE, FAULT_FLAG_USER), 0);
	pte_t *pte = lookup_pte(s.mm, BASE + 5 * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, pte);
	KUNIT_EXPECT_EQ(test, pte_pfn(*pte), page_to_pfn(zero_page));
	KUNIT_EXPECT_FALSE(test, pte_write(*pte));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 0);
	u64 v = 1;
	KUNIT_EXPECT_EQ(test, copy_from_user(&v, (void *)(BASE + 5 * PAGE_SIZE), 8), 0);
	KUNIT_EXPECT_EQ(test, v, 0);

	/* A write then gets a page of its own, and the zero page stays zero. */
	KUNIT_EXPECT_EQ(test, handle_mm_fault(s.vma, BASE + 5 * PAGE_SIZE,
					      FAULT_FLAG_USER | FAULT_FLAG_WRITE), 0);
	KUNIT_EXPECT_NE(test, pte_pfn(*pte), page_to_pfn(zero_page));
	KUNIT_EXPECT_TRUE(test, pte_write(*pte));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 1);
	v = 0x1234;
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)(BASE + 5 * PAGE_SIZE), &v, 8), 0);
	KUNIT_EXPECT_EQ(test, *(u64 *)page_address(zero_page), 0);
	space_destroy(test, &s);
}

static void user_copies_demand_page_and_fail_cleanly(struct kunit *test)
{
	struct test_space s;
	space_init(test, &s, 16 * PAGE_SIZE);
	char buf[32] = "written by the kernel";
	/* Never-touched user memory: the copy's faults allocate pages. */
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)(BASE + PAGE_SIZE - 8), buf, sizeof(buf)), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 2);
	char back[32] = { 0 };
	KUNIT_EXPECT_EQ(test, copy_from_user(back, (void *)(BASE + PAGE_SIZE - 8), sizeof(back)), 0);
	KUNIT_EXPECT_STREQ(test, back, buf);
	KUNIT_EXPECT_EQ(test, strncpy_from_user(back, (const char *)(BASE + PAGE_SIZE - 8), 32), 21);
	/* Past the VMA: the copy stops at its end and says how much is left. */
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)(BASE + 16 * PAGE_SIZE - 8), buf, 32), 24);
	KUNIT_EXPECT_EQ(test, strncpy_from_user(back, (const char *)(BASE + 16 * PAGE_SIZE), 8), -EFAULT);
	/* Kernel addresses are refused before any access. */
	KUNIT_EXPECT_EQ(test, copy_from_user(back, (void *)buf, 8), 8);
	KUNIT_EXPECT_EQ(test, copy_to_user((void *)0xffff888000000000ul, buf, 8), 8);
	u64 w;
	KUNIT_EXPECT_EQ(test, get_user_u64(&w, (void *)(TASK_SIZE - 4)), -EFAULT);
	space_destroy(test, &s);
}

/* strncpy_from_user reads aligned words where it can (one page each):
 * every start and length gives what a byte at a time gives, a string that
 * ends just before the end of the mapping is copied whole, and one that
 * runs into it faults. */
static void strncpy_from_user_any_alignment(struct kunit *test)
{
	struct test_space s;
	space_init(test, &s, 16 * PAGE_SIZE);
	const unsigned long end = BASE + 16 * PAGE_SIZE;
	char str[24], back[40];
	for (unsigned n = 0; n < 20; n++) {
		for (unsigned i = 0; i < n; i++)
			str[i] = (char)('a' + i);
		str[n] = 0;
		for (unsigned off = 0; off < 8; off++) {
			unsigned long at[2] = { BASE + 3 * PAGE_SIZE + 8 + off, end - (n + 1) - off };
			for (int k = 0; k < 2; k++) {
				KUNIT_ASSERT_EQ(test, copy_to_user((void *)at[k], str, n + 1), 0);
				memset(back, 0x55, sizeof(back));
				KUNIT_EXPECT_EQ(test, strncpy_from_user(back, (const char *)at[k], sizeof(back)), (long)n);
				KUNIT_EXPECT_EQ(test, memcmp(back, str, n + 1), 0);
				KUNIT_EXPECT_EQ(test, back[n + 1], 0x55); /* nothing after the terminator */
				/* count before the terminator: count bytes, unterminated */
				memset(back, 0x55, sizeof(back));
				KUNIT_EXPECT_EQ(test, strncpy_from_user(back, (const char *)at[k], n / 2), (long)(n / 2));
				KUNIT_EXPECT_EQ(test, memcmp(back, str, n / 2), 0);
				KUNIT_EXPECT_EQ(test, back[n / 2], 0x55);
			}
		}
		/* No terminator before the end of the mapping. */
		if (n) {
			KUNIT_ASSERT_EQ(test, copy_to_user((void *)(end - n), str, n), 0);
			KUNIT_EXPECT_EQ(test, strncpy_from_user(back, (const char *)(end - n), sizeof(back)), -EFAULT);
		}
	}
	space_destroy(test, &s);
}

/* The mmu_gather flushes once per batch, frees only after the flush, and
 * free_pgd_range keeps tables a neighbour still needs. */
static void gather_batches_and_frees_tables(struct kunit *test)
{
	struct test_space s;
	rcu_barrier(); /* tables of earlier cases still waiting for their grace period */
	unsigned long before = nr_free_pages();
	space_init(test, &s, 2 * PMD_SIZE);
	const unsigned n = 200;
	for (unsigned i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, handle_mm_fault(s.vma, BASE + i * PAGE_SIZE, FAULT_FLAG_WRITE), 0);
	KUNIT_ASSERT_EQ(test, handle_mm_fault(s.vma, BASE + PMD_SIZE, FAULT_FLAG_WRITE), 0);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), n + 1);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 2);

	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, s.mm);
	unmap_page_range(&tlb, s.vma, BASE, BASE + PMD_SIZE);
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 1);
	/* Full batches were flushed and freed on the way; the rest waits. */
	KUNIT_EXPECT_EQ(test, tlb.nr_flushes, n / MMU_GATHER_BUNDLE);
	KUNIT_EXPECT_EQ(test, tlb.nr, n % MMU_GATHER_BUNDLE);
	/* The neighbour at BASE + PMD_SIZE keeps the PMD table (ceiling), the
	 * first PTE table goes. */
	free_pgd_range(&tlb, BASE, BASE + PMD_SIZE, 0, BASE + PMD_SIZE);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1);
	KUNIT_EXPECT_EQ(test, s.mm->pgtables_bytes, 3 * (long)PAGE_SIZE);
	KUNIT_EXPECT_NULL(test, lookup_pte(s.mm, BASE));
	KUNIT_EXPECT_NOT_NULL(test, lookup_pte(s.mm, BASE + PMD_SIZE));
	/* A floor inside the PMD: the PTE table is shared with it, stays. */
	free_pgd_range(&tlb, BASE + PMD_SIZE + PAGE_SIZE, BASE + 2 * PMD_SIZE, BASE + PMD_SIZE + PAGE_SIZE, 0);
	KUNIT_EXPECT_EQ(test, s.mm->nr_ptes, 1);
	tlb_finish_mmu(&tlb);
	KUNIT_EXPECT_EQ(test, tlb.nr, 0);
	KUNIT_EXPECT_EQ(test, tlb.nr_freed, n);
	KUNIT_EXPECT_EQ(test, tlb.nr_tables_freed, 1);
	space_destroy(test, &s);
	rcu_barrier(); /* the tables wait for a grace period (mm/mmu_gather.h) */
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);
}

/* A stale TLB entry on another CPU would let it read a freed page: the
 * teardown must flush every CPU in the mm's mask that has the mm loaded. */
struct remote_reader {
	struct mm_struct *mm;
	unsigned long addr;
	u64 first, second;
	int step;
	struct wait_queue_head wq;
	struct task_struct *task;
};

static int remote_reader_fn(void *data)
{
	struct remote_reader *r = data;
	kthread_use_mm(r->mm);
	copy_from_user(&r->first, (void *)r->addr, 8); /* caches the translation */
	__atomic_store_n(&r->step, 1, __ATOMIC_RELEASE);
	wake_up_all(&r->wq);
	/* Wait (loaded, not sleeping: a switch would flush the TLB). */
	while (__atomic_load_n(&r->step, __ATOMIC_ACQUIRE) != 2)
		cpu_relax();
	copy_from_user(&r->second, (void *)r->addr, 8); /* must fault again: reads 0 */
	kthread_unuse_mm(r->mm);
	return 0;
}

/* Lets the reader finish and waits for it: before the mm goes, however the
 * case ends (registered after the mm's actions, so it runs first). */
static void remote_reader_stop(void *data)
{
	struct remote_reader *r = data;
	__atomic_store_n(&r->step, 2, __ATOMIC_RELEASE);
	kthread_join(r->task);
}

static void teardown_flushes_other_cpus(struct kunit *test)
{
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
	unsigned other = smp_processor_id() == 0 ? 1 : 0;
	if (!cpu_online(other))
		kunit_skip(test, "CPU %u is offline", other);
	struct test_space s;
	space_init(test, &s, PAGE_SIZE);
	u64 v = 0x5a5a5a5a5a5a5a5aull;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)BASE, &v, 8), 0);

	/* Static: the reader and the deferred stop outlive this frame. */
	static struct remote_reader r;
	r = (struct remote_reader){ .mm = s.mm, .addr = BASE };
	init_waitqueue_head(&r.wq);
	unsigned long flushes = tlb_user_flushes(other);
	r.task = kthread_run_on_cpu(remote_reader_fn, &r, other, "tlbtest/%u");
	KUNIT_ASSERT_NOT_NULL(test, r.task);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, remote_reader_stop, &r), 0);
	wait_event(r.wq, __atomic_load_n(&r.step, __ATOMIC_ACQUIRE) == 1);
	KUNIT_EXPECT_EQ(test, r.first, v);
	KUNIT_EXPECT_TRUE(test, mm_cpumask(s.mm)->bits >> other & 1);

	mmap_read_lock(s.mm); /* as MADV_DONTNEED holds it */
	zap_page_range(s.vma, BASE, PAGE_SIZE);
	mmap_read_unlock(s.mm);
	KUNIT_EXPECT_GT(test, tlb_user_flushes(other), flushes);
	kunit_release_action(test, remote_reader_stop, &r);
	KUNIT_EXPECT_EQ(test, r.second, 0);
	space_destroy(test, &s);
}

static void protection_changes_keep_the_zero_page_read_only(struct kunit *test)
{
	struct test_space s;
	space_init(test, &s, 4 * PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, handle_mm_fault(s.vma, BASE, FAULT_FLAG_WRITE), 0);
	KUNIT_ASSERT_EQ(test, handle_mm_fault(s.vma, BASE + PAGE_SIZE, 0), 0);
	pte_t *p0 = lookup_pte(s.mm, BASE), *p1 = lookup_pte(s.mm, BASE + PAGE_SIZE);
	/* PROT_NONE: not present, the page stays behind the entry. */
	KUNIT_EXPECT_EQ(test, change_protection(s.vma, BASE, BASE + 4 * PAGE_SIZE, vm_get_page_prot(0)), 2);
	KUNIT_EXPECT_FALSE(test, pte_val(*p0) & _PAGE_PRESENT);
	KUNIT_EXPECT_TRUE(test, pte_present(*p0));
	KUNIT_EXPECT_EQ(test, get_mm_rss(s.mm), 1);
	/* Back to read-write: the zero page must not become writable. */
	change_protection(s.vma, BASE, BASE + 4 * PAGE_SIZE, vm_get_page_prot(VM_READ | VM_WRITE));
	KUNIT_EXPECT_TRUE(test, pte_write(*p0));
	KUNIT_EXPECT_FALSE(test, pte_write(*p1));
	KUNIT_EXPECT_EQ(test, pte_pfn(*p1), page_to_pfn(zero_page));
	space_destroy(test, &s);
}

/* With SMAP the kernel cannot touch user memory outside the uaccess
 * functions: a plain load faults (and the fault handler does not treat it
 * as demand paging, since no exception-table entry covers it). */
static void stray_user_load(struct kunit *test)
{
	(void)test;
	(void)*(volatile u64 *)BASE;
}

static void smap_blocks_stray_kernel_access(struct kunit *test)
{
	if (!smap_enabled)
		kunit_skip(test, "the CPU has no SMAP");
	struct test_space s;
	space_init(test, &s, PAGE_SIZE);
	u64 v = 7;
	KUNIT_ASSERT_EQ(test, copy_to_user((void *)BASE, &v, 8), 0); /* present and writable */
	static char captured[1024];
	struct printk_capture cap;
	struct kunit inner;
	struct kunit_case c = { .run_case = stray_user_load, .name = "stray_user_load" };
	printk_capture_begin(&cap, captured, sizeof(captured));
	enum kunit_status st = kunit_run_case(NULL, &c, &inner);
	printk_capture_end(&cap);
	KUNIT_EXPECT_EQ(test, st, KUNIT_FAILURE);
	KUNIT_EXPECT_EQ(test, inner.faults, 1);
	KUNIT_EXPECT_NOT_NULL(test, strstr(captured, "page fault"));
	space_destroy(test, &s);
}

static struct kunit_case memory_cases[] = {
	KUNIT_CASE(pmd_install_reports_what_it_found),
	KUNIT_CASE(read_fault_maps_the_zero_page),
	KUNIT_CASE(user_copies_demand_page_and_fail_cleanly),
	KUNIT_CASE(strncpy_from_user_any_alignment),
	KUNIT_CASE(gather_batches_and_frees_tables),
	KUNIT_CASE(teardown_flushes_other_cpus),
	KUNIT_CASE(protection_changes_keep_the_zero_page_read_only),
	KUNIT_CASE(smap_blocks_stray_kernel_access),
	{}
};

static struct kunit_suite memory_suite = {
	.name = "memory",
	.test_cases = memory_cases,
};
kunit_test_suite(memory_suite);
