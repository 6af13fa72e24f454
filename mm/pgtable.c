/* User page tables: reaching a level (mm_find_pmd, pte_offset_map[_lock]),
 * allocating one (pud_alloc, pmd_alloc, __pte_alloc/pmd_install), counting
 * them, and the one range walk every walker uses (walk_pmd_range). The
 * contracts and the huge-PMD rule are in mm/pgtable.h.
 *
 * Invariants:
 *   - upper-level user entries are none or _PAGE_TABLE (present, writable,
 *     user): the leaf PTE alone decides what an access may do;
 *   - a PMD is none, points to a PTE table, or is huge (maps 2 MiB itself);
 *     only pte_offset_map() turns it into a PTE-table address, and only in
 *     the second case;
 *   - page-table pages below the PGD have PG_table and are counted in
 *     mm->pgtables_bytes (and nr_ptes at the PTE level) and in
 *     nr_user_pagetable_pages() from installation until free_pgtables hands
 *     them to the mmu_gather (mm/teardown.c uncounts them there) or, for a
 *     refcounted PTE table, until its last put unhooks it
 *     (free_user_pte_table, mm/pte_ref.c);
 *   - a PTE table's struct page holds the PMD entry that maps it (pmd)
 *     and, in refcount mode, its count (pt_refcount: non-none entries plus
 *     walkers), both set by pmd_install (pte_ref_init).
 * Locking: an entry goes from none to a table only under
 * mm->page_table_lock, tested again under it (a racing installer's table
 * is freed unused). Each table carries its own PTE lock (ptlock_ptr),
 * initialised here before the table is published. */
#include "mm/pgtable.h"
#include "arch/x86_64/cpu.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "kernel/sched.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

static long user_pagetable_pages;

unsigned long nr_user_pagetable_pages(void)
{
	return (unsigned long)__atomic_load_n(&user_pagetable_pages, __ATOMIC_RELAXED);
}

void mm_account_pgtable(struct mm_struct *mm, long delta, bool pte_level)
{
	__atomic_add_fetch(&mm->pgtables_bytes, delta * (long)PAGE_SIZE, __ATOMIC_RELAXED);
	if (pte_level)
		__atomic_add_fetch(&mm->nr_ptes, delta, __ATOMIC_RELAXED);
	__atomic_add_fetch(&user_pagetable_pages, delta, __ATOMIC_RELAXED);
}

/* --- reaching a level ----------------------------------------------------- */

pmd_t *mm_find_pmd(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	if (pgd_none(pgdp_get(pgd)))
		return NULL;
	pud_t *pud = pud_offset(pgd, addr);
	pud_t val = pudp_get(pud);
	/* A PUD that maps a 1 GiB hugetlb page has no PMD table below it. */
	if (pud_none(val) || (pud_val(val) & _PAGE_PSE))
		return NULL;
	return pmd_offset(pud, addr);
}

pte_t *pte_offset_map(pmd_t *pmd, unsigned long addr)
{
	/* One read: the decision and the address come from the same value. */
	pmd_t val = pmdp_get(pmd);
	if (pmd_none(val) || pmd_trans_huge(val))
		return NULL;
	return pmd_page_vaddr(val) + pte_index(addr);
}

/* Linux's __pte_offset_map_lock: the lock is the one of the table the
 * PMD pointed to when it was read, and the PMD must still hold that value
 * once the lock is held. */
pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
			   spinlock_t **ptlp)
{
	(void)mm;
	pmd_t val = pmdp_get(pmd);
	if (pmd_none(val) || pmd_trans_huge(val))
		return NULL;
	pte_t *pte = pmd_page_vaddr(val) + pte_index(addr);
	spinlock_t *ptl = ptlock_ptr(pfn_to_page(pmd_pfn(val)));
	spin_lock(ptl);
	/* The table may have gone (or been replaced) before we held its
	 * lock: only a PMD that still points to it will do. */
	if (pmd_val(pmdp_get(pmd)) != pmd_val(val)) {
		spin_unlock(ptl);
		pte_unmap(pte);
		return NULL;
	}
	*ptlp = ptl;
	return pte;
}

/* --- allocating a level ----------------------------------------------------- */

struct page *pte_alloc_one(struct mm_struct *mm)
{
	(void)mm;
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (p) {
		page_set_flag(p, PG_table);
		ptlock_init(p); /* Linux's pagetable_pte_ctor */
	}
	return p;
}

/* Linux's ptlock_free (pagetable_dtor): no one may hold the lock of a
 * table that goes; the word goes back to the allocator zeroed. */
void ptlock_free(struct page *table)
{
	if (spin_is_locked(&table->ptl))
		pr_err("BUG: page table pfn %#lx freed with its PTE lock held\n", page_to_pfn(table));
	spin_lock_init(&table->ptl);
}

/* The one destructor of page-table pages (Linux's pagetable_free after
 * pagetable_dtor): pte_free, the mmu_gather's table batch and the RCU
 * free of a refcounted PTE table all end here. */
void pagetable_free(struct page *table)
{
	ptlock_free(table);
	page_clear_flag(table, PG_table);
	/* The back-pointer and the count share words with a user page's
	 * private, mapping and index: the page goes back with them zeroed,
	 * as Linux's free_pages_check wants every freed page's mapping. */
	table->pmd = NULL;
	table->pt_refcount = 0;
	table->pt_pad2 = 0;
	__free_page(table);
}

/* Page-table pages queued for their RCU grace period and not freed yet. */
static long pagetables_rcu_pending;

unsigned long nr_pagetables_rcu_pending(void)
{
	return (unsigned long)__atomic_load_n(&pagetables_rcu_pending, __ATOMIC_ACQUIRE);
}

/* Linux's pte_free_rcu / tlb_remove_table_one_rcu: the grace period is
 * over, no walker that could have seen the table is left. */
static void pagetable_free_rcu(struct rcu_head *head)
{
	pagetable_free(container_of((void *)head, struct page, pt_pad));
	__atomic_sub_fetch(&pagetables_rcu_pending, 1, __ATOMIC_RELEASE);
}

_Static_assert(sizeof(struct rcu_head) <= sizeof(((struct page *)0)->pt_pad),
	       "an rcu_head fits in a page-table page's pt_pad words");

void pagetable_free_deferred(struct page *table)
{
	__atomic_add_fetch(&pagetables_rcu_pending, 1, __ATOMIC_RELAXED);
	call_rcu((struct rcu_head *)table->pt_pad, pagetable_free_rcu);
}

void pte_free(struct mm_struct *mm, struct page *table)
{
	(void)mm;
	pagetable_free(table);
}

/* Linux's __pud_alloc/__pmd_alloc: a new table for an entry that was none,
 * unless another walker installed one first (then ours is freed unused).
 * 0, or -ENOMEM. */
static int __pud_alloc(struct mm_struct *mm, pgd_t *pgd)
{
	struct page *new = pte_alloc_one(mm);
	if (!new)
		return -ENOMEM;
	spin_lock(&mm->page_table_lock);
	if (pgd_none(pgdp_get(pgd))) {
		mm_account_pgtable(mm, 1, false);
		set_pgd(pgd, __pgd(page_to_phys(new) | _PAGE_TABLE));
		new = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (new)
		pte_free(mm, new);
	return 0;
}

static int __pmd_alloc(struct mm_struct *mm, pud_t *pud)
{
	struct page *new = pte_alloc_one(mm);
	if (!new)
		return -ENOMEM;
	spin_lock(&mm->page_table_lock);
	if (pud_none(pudp_get(pud))) {
		mm_account_pgtable(mm, 1, false);
		set_pud(pud, __pud(page_to_phys(new) | _PAGE_TABLE));
		new = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (new)
		pte_free(mm, new);
	return 0;
}

pud_t *pud_alloc(struct mm_struct *mm, pgd_t *pgd, unsigned long addr)
{
	if (pgd_none(pgdp_get(pgd)) && __pud_alloc(mm, pgd))
		return NULL;
	return pud_offset(pgd, addr);
}

pmd_t *pmd_alloc(struct mm_struct *mm, pud_t *pud, unsigned long addr)
{
	if (pud_none(pudp_get(pud)) && __pmd_alloc(mm, pud))
		return NULL;
	return pmd_offset(pud, addr);
}

/* The series' pmd_install (patch 07): a new table starts with one
 * reference, the installer's (pte_ref_init; the count is kept in every
 * mode, used only in refcount mode); a table another walker installed
 * first gets a reference from us instead, unless its count is zero: then
 * whoever dropped it there is about to unhook it under this same lock,
 * and we wait for that and install ours. */
enum pmd_installed_type pmd_install(struct mm_struct *mm, pmd_t *pmd, struct page **new)
{
	enum pmd_installed_type ret = INSTALLED_PTE;
	/* Not visible to anyone yet: its PTE lock starts free, whoever made
	 * the page. */
	ptlock_init(*new);
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
retry:
	spin_lock(ptl);
	pmd_t val = pmdp_get(pmd);
	if (pmd_none(val)) {
		mm_account_pgtable(mm, 1, true);
		/* the PMD entry that maps this PTE table, and its count */
		pte_ref_init(*new, pmd, 1);
		set_pmd(pmd, __pmd(page_to_phys(*new) | _PAGE_TABLE));
		*new = NULL;
	} else if (pmd_trans_huge(val)) {
		ret = INSTALLED_HUGE_PMD;
	} else if (!pte_get_unless_zero(pmd)) {
		spin_unlock(ptl);
		cpu_relax();
		goto retry;
	}
	spin_unlock(ptl);
	return ret;
}

int __pte_alloc(struct mm_struct *mm, pmd_t *pmd)
{
	struct page *new = pte_alloc_one(mm);
	if (!new)
		return -ENOMEM;
	int ret = pmd_install(mm, pmd, &new);
	if (new)
		pte_free(mm, new);
	return ret;
}

pte_t *pte_alloc_map(struct mm_struct *mm, pmd_t *pmd, unsigned long addr)
{
	return pte_alloc(mm, pmd) < 0 ? NULL : pte_offset_map(pmd, addr);
}

/* --- walking a range ----------------------------------------------------------- */

void walk_pmd_range(struct pmd_walk *walk, unsigned long addr, unsigned long end)
{
	if (!walk->pte_table || !walk->huge_pmd) {
		pr_err("BUG: walk_pmd_range without a %s callback: nothing walked\n",
		       walk->pte_table ? "huge_pmd" : "pte_table");
		return;
	}
	struct mm_struct *mm = walk->mm;
	unsigned long next;
	/* A missing table is skipped whole at the level where it misses; the
	 * entries of one PMD table are walked in place. The PMD table stays
	 * while the walker holds the mmap_lock (free_pgd_range runs under it
	 * held for writing, or with the mm gone). */
	for (; addr < end; addr = next) {
		pgd_t *pgd = pgd_offset(mm, addr);
		if (pgd_none(pgdp_get(pgd))) {
			next = pgd_addr_end(addr, end);
			continue;
		}
		pud_t *pud = pud_offset(pgd, addr);
		unsigned long pud_end = pud_addr_end(addr, end);
		if (pud_none(pudp_get(pud))) {
			next = pud_end;
			continue;
		}
		pmd_t *pmd = pmd_offset(pud, addr);
		next = pud_end;
		for (; addr < pud_end; addr = next, pmd++) {
			if (pmd_skip_none_run(&pmd, addr, pud_end, &next))
				continue;
			next = pmd_addr_end(addr, pud_end);
			pmd_t val = pmdp_get(pmd);
			if (pmd_none(val)) /* emptied since the look above */
				continue;
			if (pmd_trans_huge(val))
				walk->huge_pmd(walk, pmd, addr, next);
			else
				walk->pte_table(walk, pmd, addr, next);
			cond_resched();
		}
	}
}
