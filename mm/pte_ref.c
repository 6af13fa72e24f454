/* Reference counts of user PTE tables: the bodies of mm/pte_ref.h, in the
 * order of patch 13 of Qi Zheng's series "Free user PTE page table pages"
 * (v3, 2021-11-10, https://lore.kernel.org/all/20211110105428.32458-1-zhengqi.arch@bytedance.com/),
 * "mm/pte_ref: free user PTE page table pages", which turned patch 03's
 * stubs into the real thing; patch 15 ("mm/pte_ref: use mmu_gather to free
 * PTE page table pages") added the mmu_gather argument of the put.
 *
 * The invariant (mm/pte_ref.h): a PTE table's count, page->pt_refcount, is
 * the number of its non-none entries plus the number of walkers holding
 * it. It is set when the table is installed (pte_ref_init from
 * pmd_install: one, the installer's walker reference) and moves only
 * through pte_get_many/pte_get_unless_zero/pte_try_get up and
 * __pte_put_many down. A count never goes up from zero (only pte_get_many
 * adds without a test, and its callers already hold a reference): zero
 * means the table is on its way out, and the put that reached zero frees
 * it (free_user_pte_table):
 *
 *   pmd lock; check *pmd still maps it and the count is still zero;
 *   clear *pmd; unlock; count it out of VmPTE;
 *   flush the TLB of the mm's CPUs over its 2 MiB (or leave that to the
 *   teardown's mmu_gather), then free it after an RCU grace period
 *   (call_rcu, or the gather's table batch: tlb_remove_table).
 *
 * The grace period is what pte_try_get relies on: it reads the PMD and
 * increments the count of the table the PMD pointed to inside
 * rcu_read_lock(), so the table's struct page cannot have been freed and
 * reused (its pt_refcount word overwritten) between the read and the
 * increment. Lockless walkers (get_user_pages_fast) rely on it likewise.
 *
 * Where mmlab differs from the series:
 *   - the mode is chosen at boot (pte_reclaim_mode, mm/pt_reclaim.h), not
 *     by CONFIG_FREE_USER_PTE: every body starts with pte_ref_enabled();
 *   - free_user_pte_table re-checks, under the PMD lock, that the count is
 *     still zero and the PMD still maps the table (the series trusts its
 *     caller): a failed check is a BUG report, not a double free;
 *   - the debug check (pte_ref.debug, the series' pte_free_debug under
 *     CONFIG_DEBUG_VM) reports instead of BUG_ON, and pte_ref_verify
 *     recomputes every count of an mm (for tests).
 * Locking: the count is atomic; the PMD entry changes under pmd_lockptr
 * (mm->page_table_lock). Gets and puts happen under the mmap_lock (read or
 * write), never with a PTE lock held for a put (the put may free). */
#include "mm/pte_ref.h"
#include "arch/x86_64/cpu.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/rcu.h"
#include "mm/mmu_context.h"
#include "mm/mmu_gather.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/pt_reclaim.h"

bool pte_ref_debug = true;
kernel_param_flag("pte_ref.debug", pte_ref_debug,
		  "check that a freed page table is empty (BUG report otherwise)");

void (*pte_ref_zero_hook)(struct mm_struct *mm, pmd_t *pmd);

static inline struct page *pmd_pgtable_page(pmd_t val) { return pfn_to_page(pmd_pfn(val)); }

void pte_ref_init(struct page *pte, pmd_t *pmd, int count)
{
	pte->pmd = pmd;
	__atomic_store_n(&pte->pt_refcount, count, __ATOMIC_RELAXED);
}

pmd_t *pte_to_pmd(pte_t *pte)
{
	return virt_to_page(pte)->pmd;
}

void pte_update_pmd(pmd_t old_pmd, pmd_t *new_pmd)
{
	pmd_pgtable_page(old_pmd)->pmd = new_pmd;
}

void pte_get_many(pmd_t *pmd, unsigned int nr)
{
	if (!pte_ref_enabled())
		return;
	struct page *pte = pmd_pgtable_page(pmdp_get(pmd));
	int old = __atomic_fetch_add(&pte->pt_refcount, (int)nr, __ATOMIC_RELAXED);
	if (pte_ref_debug && unlikely(old <= 0))
		pr_err("BUG: pte_ref: get on PTE table pfn %#lx with count %d (the caller holds no reference)\n",
		       page_to_pfn(pte), old);
}

/* atomic_inc_not_zero on the table's count. */
static __always_inline bool __pte_get_unless_zero(struct page *pte)
{
	int old = __atomic_load_n(&pte->pt_refcount, __ATOMIC_RELAXED);
	do {
		if (old == 0)
			return false;
	} while (!__atomic_compare_exchange_n(&pte->pt_refcount, &old, old + 1, false,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

bool pte_get_unless_zero(pmd_t *pmd)
{
	if (!pte_ref_enabled())
		return true;
	return __pte_get_unless_zero(pmd_pgtable_page(pmdp_get(pmd)));
}

/* pte_try_get's body; counted: the caller knows that the refcount is on
 * (pte_alloc_get, on every fault), so the mode is not read again and the
 * body is inlined there. */
static __always_inline enum pte_tryget_type __pte_try_get(pmd_t *pmd, bool counted)
{
	enum pte_tryget_type ret = TRYGET_SUCCESSED;
	rcu_read_lock();
	pmd_t val = pmdp_get(pmd);
	if (unlikely(pmd_none(val)))
		ret = TRYGET_FAILED_NONE;
	else if (unlikely(pmd_trans_huge(val)))
		ret = TRYGET_FAILED_HUGE_PMD;
	else if ((counted || pte_ref_enabled()) && !__pte_get_unless_zero(pmd_pgtable_page(val)))
		ret = TRYGET_FAILED_ZERO;
	rcu_read_unlock();
	return ret;
}

enum pte_tryget_type pte_try_get(pmd_t *pmd)
{
	return __pte_try_get(pmd, false);
}

int pte_ref_count(pmd_t *pmd)
{
	pmd_t val = pmdp_get(pmd);
	if (pmd_none(val) || pmd_trans_huge(val))
		return -1;
	return __atomic_load_n(&pmd_pgtable_page(val)->pt_refcount, __ATOMIC_RELAXED);
}

pte_t *pte_tryget_map(struct mm_struct *mm, pmd_t *pmd, unsigned long address)
{
	(void)mm;
	if (pte_try_get(pmd))
		return NULL;
	/* Our reference keeps the table and the PMD's value. */
	return pte_offset_map(pmd, address);
}

pte_t *pte_tryget_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long address,
			   spinlock_t **ptlp)
{
	if (pte_try_get(pmd))
		return NULL;
	pte_t *pte = pte_offset_map_lock(mm, pmd, address, ptlp);
	if (!pte)
		pte_put(mm, pmd, address); /* cannot happen while we hold it; stay balanced */
	return pte;
}

void __pte_put_many(struct mmu_gather *tlb, struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
		    unsigned int nr)
{
	if (!pte_ref_enabled() || !nr)
		return;
	/* The caller's reference keeps the table hooked: a PMD that holds no
	 * table here is a put without its get (mmlab's check; the series
	 * trusts it), reported rather than turned into a write to the
	 * struct page of whatever pfn the entry holds. */
	pmd_t val = pmdp_get(pmd);
	if (unlikely(!pmd_present(val) || pmd_trans_huge(val))) {
		pr_err("BUG: pte_ref: put of %u on the PMD at %#lx, which holds no PTE table (%#lx)\n", nr,
		       addr & PMD_MASK, (unsigned long)pmd_val(val));
		return;
	}
	struct page *pte = pmd_pgtable_page(val);
	int left = __atomic_sub_fetch(&pte->pt_refcount, (int)nr, __ATOMIC_ACQ_REL);
	if (likely(left > 0))
		return;
	if (unlikely(left < 0)) {
		pr_err("BUG: pte_ref: PTE table pfn %#lx at %#lx put below zero (%d)\n",
		       page_to_pfn(pte), addr & PMD_MASK, left);
		return;
	}
	free_user_pte_table(mm, pmd, addr & PMD_MASK, tlb);
}

/* The series' pte_put_vmf: the fault's own reference, dropped once. */
void pte_put_vmf(struct vm_fault *vmf)
{
	if (!(vmf->flags & FAULT_FLAG_PTE_GET))
		return;
	vmf->flags &= ~FAULT_FLAG_PTE_GET;
	pte_put(vmf->vma->vm_mm, vmf->pmd, vmf->address);
}

/* --- the free ---------------------------------------------------------------- */

/* The series' pte_free_debug (CONFIG_DEBUG_VM), reporting instead of
 * BUG_ON: the first non-none entry and how many there are. */
bool pagetable_check_empty(struct page *table, unsigned long addr)
{
	if (!pte_ref_debug)
		return true;
	const u64 *e = page_address(table);
	/* Eight entries per test: an empty table is the rule. */
	u64 any = 0;
	for (unsigned i = 0; i < PTRS_PER_TABLE; i += 8)
		any |= e[i] | e[i + 1] | e[i + 2] | e[i + 3] | e[i + 4] | e[i + 5] | e[i + 6] | e[i + 7];
	if (!any)
		return true;
	unsigned bad = 0, first = 0;
	for (unsigned i = 0; i < PTRS_PER_TABLE; i++)
		if (e[i] && !bad++)
			first = i;
	pr_err("BUG: page table pfn %#lx (covering %#lx) freed with %u non-none entries; entry %u is %#llx\n",
	       page_to_pfn(table), addr, bad, first, (unsigned long long)e[first]);
	return false;
}

void free_user_pte_table(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
			 struct mmu_gather *tlb)
{
	addr &= PMD_MASK;
	spinlock_t *ptl = pmd_lockptr(mm, pmd);
	spin_lock(ptl);
	pmd_t val = pmdp_get(pmd);
	if (pmd_none(val) || pmd_trans_huge(val)) {
		spin_unlock(ptl);
		pr_err("BUG: pte_ref: free of the PTE table at %#lx, but the PMD holds %#lx\n", addr,
		       pmd_val(val));
		return;
	}
	struct page *table = pmd_pgtable_page(val);
	int count = __atomic_load_n(&table->pt_refcount, __ATOMIC_ACQUIRE);
	if (count != 0) {
		spin_unlock(ptl);
		pr_err("BUG: pte_ref: free of PTE table pfn %#lx at %#lx with count %d\n",
		       page_to_pfn(table), addr, count);
		return;
	}
	pmd_clear(pmd);
	spin_unlock(ptl);
	/* Nobody can reach it through the PMD any more; those who read the
	 * PMD before are inside rcu_read_lock() (pte_try_get, which then
	 * finds the count zero) or lockless walkers, done by the end of the
	 * grace period. */
	pagetable_check_empty(table, addr);
	mm_account_pgtable(mm, -1, true);
	__atomic_add_fetch(&mm->pte_tables_reclaimed, 1, __ATOMIC_RELAXED);
	if (tlb) {
		/* Patch 15: the gather's flush covers it, its table batch
		 * waits for the grace period (tlb_remove_table_rcu). */
		tlb_remove_table(tlb, table, addr, PMD_SIZE);
		return;
	}
	/* The paging-structure caches of every CPU running the mm may still
	 * hold the PMD entry. */
	flush_tlb_mm_range(mm, addr, addr + PMD_SIZE);
	pagetable_free_deferred(table); /* patch 13's call_rcu(pte_free_rcu) */
}

/* The refcount half of pte_alloc() (the series' patch 07): take a
 * reference on the table that is there, or install one with its first
 * count; a table whose count is zero is being freed by whoever dropped it
 * there, which only needs the PMD lock to finish: wait for that and try
 * again (the fault that "retries" on TRYGET_FAILED_ZERO). ret is the
 * first try's answer; out of line, so that the try every fault makes
 * (pte_alloc_get) needs no saved registers. */
static __noinline int pte_alloc_get_slow(struct mm_struct *mm, pmd_t *pmd, enum pte_tryget_type ret)
{
	for (;;) {
		switch (ret) {
		case TRYGET_SUCCESSED:
			return INSTALLED_PTE;
		case TRYGET_FAILED_HUGE_PMD:
			return INSTALLED_HUGE_PMD;
		case TRYGET_FAILED_NONE:
			/* pmd_install gives the new table its first count
			 * or takes one on the table someone installed
			 * first (waiting out one whose count is zero). */
			return __pte_alloc(mm, pmd);
		case TRYGET_FAILED_ZERO:
			if (pte_ref_zero_hook)
				pte_ref_zero_hook(mm, pmd);
			cpu_relax();
			break;
		}
		ret = __pte_try_get(pmd, true);
	}
}

int pte_alloc_get(struct mm_struct *mm, pmd_t *pmd)
{
	enum pte_tryget_type ret = __pte_try_get(pmd, true);
	if (likely(ret == TRYGET_SUCCESSED))
		return INSTALLED_PTE;
	return pte_alloc_get_slow(mm, pmd, ret);
}

/* --- the debug walk ------------------------------------------------------------ */

unsigned long pte_ref_verify(struct mm_struct *mm)
{
	if (!pte_ref_enabled())
		return 0;
	unsigned long bad = 0;
	for (unsigned long gi = 0; gi < pgd_index(TASK_SIZE) + 1; gi++) {
		pgd_t pgd = pgdp_get(mm->pgd + gi);
		if (pgd_none(pgd))
			continue;
		pud_t *pud = pgd_pgtable(pgd);
		for (unsigned ui = 0; ui < PTRS_PER_TABLE; ui++) {
			pud_t pudv = pudp_get(pud + ui);
			if (pud_none(pudv) || (pud_val(pudv) & _PAGE_PSE))
				continue; /* none, or a 1 GiB hugetlb page */
			pmd_t *pmd = pud_pgtable(pudv);
			for (unsigned mi = 0; mi < PTRS_PER_TABLE; mi++) {
				pmd_t val = pmdp_get(pmd + mi);
				if (pmd_none(val) || pmd_trans_huge(val))
					continue;
				unsigned long addr = gi << PGDIR_SHIFT | (unsigned long)ui << PUD_SHIFT |
						     (unsigned long)mi << PMD_SHIFT;
				struct page *table = pmd_pgtable_page(val);
				const pte_t *pte = pmd_page_vaddr(val);
				int entries = 0;
				for (unsigned i = 0; i < PTRS_PER_TABLE; i++)
					entries += !pte_none(ptep_get((pte_t *)pte + i));
				int count = __atomic_load_n(&table->pt_refcount, __ATOMIC_RELAXED);
				if (count != entries) {
					pr_err("pte_ref_verify: PTE table at %#lx (pfn %#lx): count %d, %d non-none entries\n",
					       addr, page_to_pfn(table), count, entries);
					bad++;
				}
				if (table->pmd != pmd + mi) {
					pr_err("pte_ref_verify: PTE table at %#lx: back-pointer %p, PMD entry at %p\n",
					       addr, table->pmd, (void *)(pmd + mi));
					bad++;
				}
			}
		}
	}
	return bad;
}
