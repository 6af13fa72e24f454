/* Reference counts of user PTE tables (Qi Zheng, "Free user PTE page table
 * pages", v3, 2021-11-10, never merged; patches 03-15 of the series,
 * https://lore.kernel.org/all/20211110105428.32458-1-zhengqi.arch@bytedance.com/), active
 * when pte_reclaim_mode is refcount (mm/pt_reclaim.h).
 *
 * The invariant: a PTE table's count (struct page pt_refcount) is the
 * number of its non-none entries plus the number of walkers holding it.
 * When it drops to zero the table is unhooked from its PMD
 * (free_user_pte_table) and freed after an RCU grace period.
 *
 * The bodies are in mm/pte_ref.c (read it beside patch 13 of the series,
 * "mm/pte_ref: free user PTE page table pages"). The contract for users of the interface:
 *
 *   - a walker that reads or changes PTEs under mmap_lock held for
 *     READING (faults, MADV_DONTNEED/FREE, populate, procfs readers,
 *     mincore...) enters a table with pte_tryget_map() or
 *     pte_tryget_map_lock() (NULL: no table there, or it is being freed:
 *     treat as none / retry), and leaves with pte_unmap() or
 *     pte_unmap_unlock() followed by pte_put(mm, pmd, addr), with no PTE
 *     lock held (the put may free the table);
 *   - under mmap_lock held for WRITING no table is freed by anyone else,
 *     so pte_offset_map_lock() is enough to walk; the entry counts must
 *     still be kept, and the puts for entries cleared are the walker's
 *     own: the last one frees the table, so a walker that clears entries
 *     either holds a reference of its own across the walk (pte_try_get,
 *     as zap_pte_range does) or puts only once it is done with the table;
 *   - whoever turns a none PTE into a non-none one (present, PROT_NONE,
 *     the zero page: any non-none value) takes one reference for it
 *     (pte_get, or pte_get_many for a batch) while holding its own walker
 *     reference or the mmap write lock, or, under the PTE lock, hands its
 *     own walker reference over to it and touches the table no more after
 *     the unlock (the fault path: fault_install_pte); whoever turns a
 *     non-none PTE into none drops one (pte_put/pte_put_many, after the
 *     PTE lock is released);
 *   - a new table gets its first count from __pte_alloc/pmd_install
 *     (pte_ref_init); a moved table keeps its count and gets its new PMD
 *     back-pointer (pte_update_pmd);
 *   - lockless walkers (get_user_pages_fast) take no reference: they rely
 *     on the RCU grace period before a freed table is reused, and must
 *     run inside rcu_read_lock() (see mm/gup.c);
 *   - pte_alloc() (mm/pgtable.h) is a walker's entry too: INSTALLED_PTE
 *     comes with a reference held (the new table's first count, or one
 *     taken on the table someone else installed), which the caller drops
 *     with pte_put() (the series' patch 07);
 *   - the fault path holds its reference from pte_alloc() to the end of
 *     handle_mm_fault (FAULT_FLAG_PTE_GET, pte_put_vmf: patches 09-13),
 *     unless it gave it to the entry it installed (the handover above);
 *   - the last put inside a teardown passes its mmu_gather (__pte_put_many,
 *     patch 15), so the table joins the gather's RCU table batch.
 * In scan and off modes the gets and puts are no-ops and pte_try_get
 * only reports none/huge: the fault path then costs what it did before
 * (one load and compare of pte_reclaim_mode). */
#ifndef MM_PTE_REF_H
#define MM_PTE_REF_H

#include "arch/x86_64/pgtable.h"
#include "kernel/spinlock.h"
#include "mm/mm_types.h"

struct page;
struct mmu_gather;

enum pte_tryget_type {
	TRYGET_SUCCESSED,
	TRYGET_FAILED_ZERO,     /* the table's count is zero: it is being freed */
	TRYGET_FAILED_NONE,     /* the PMD holds no table */
	TRYGET_FAILED_HUGE_PMD, /* the PMD maps a huge page itself */
};

/* A new PTE table for *pmd starts with count (the series' pte_ref_init). */
void pte_ref_init(struct page *pte, pmd_t *pmd, int count);
/* The PMD entry that maps the table pte points into. */
pmd_t *pte_to_pmd(pte_t *pte);
/* The table old_pmd maps now hangs off new_pmd (mremap's move_normal_pmd). */
void pte_update_pmd(pmd_t old_pmd, pmd_t *new_pmd);

void pte_get_many(pmd_t *pmd, unsigned int nr);
static inline void pte_get(pmd_t *pmd) { pte_get_many(pmd, 1); }
/* Takes a reference unless the count is zero (the table is on its way
 * out): the series' atomic_inc_not_zero. pmd may point to a copy of the
 * entry (pte_try_get passes its own read of it). */
bool pte_get_unless_zero(pmd_t *pmd);
/* Reads *pmd and, when it maps a PTE table, takes a reference on it; the
 * read and the increment are inside rcu_read_lock() so that a table
 * unhooked and freed meanwhile cannot be reused under the increment. */
enum pte_tryget_type pte_try_get(pmd_t *pmd);
/* The table's count now (tests, pte_ref_verify); -1 when *pmd maps no
 * PTE table. */
int pte_ref_count(pmd_t *pmd);

/* pte_try_get then pte_offset_map[_lock]: NULL (nothing held) unless the
 * try succeeded and the table is still there. */
pte_t *pte_tryget_map(struct mm_struct *mm, pmd_t *pmd, unsigned long address);
pte_t *pte_tryget_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long address,
			   spinlock_t **ptlp);

/* Drops nr references; the last one frees the table (addr: an address it
 * covers, for the TLB flush) through tlb when not NULL (patch 15's
 * __pte_put_many). Never with a PTE lock held. */
void __pte_put_many(struct mmu_gather *tlb, struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
		    unsigned int nr);
static inline void pte_put_many(struct mm_struct *mm, pmd_t *pmd, unsigned long addr, unsigned int nr)
{
	__pte_put_many(NULL, mm, pmd, addr, nr);
}
static inline void pte_put(struct mm_struct *mm, pmd_t *pmd, unsigned long addr)
{
	__pte_put_many(NULL, mm, pmd, addr, 1);
}

/* The fault path's reference (the series' struct vm_fault, reduced to what
 * mmlab's fault path carries): FAULT_FLAG_PTE_GET in flags says that the
 * fault holds a reference on the table *pmd maps, which pte_put_vmf()
 * drops (once) before the fault returns, under the mmap_lock, unless the
 * fault handed it to a none entry it filled (fault_install_pte clears the
 * flag then). */
struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address; /* page aligned */
	unsigned int flags;    /* FAULT_FLAG_* (mm/memory.h) */
	pmd_t *pmd;
	/* Linux's vmf->page: a file's page-cache page the fault found (a
	 * private file mapping's, mm/filemap_fault.c), mapped itself or
	 * copied; NULL otherwise. */
	struct page *page;
};
#define FAULT_FLAG_PTE_GET 0x400 /* Linux's bit 10 in the series */
void pte_put_vmf(struct vm_fault *vmf);

/* Test hook for the TRYGET_FAILED_ZERO path of pte_alloc(): called (when
 * set) each time pte_alloc() finds the count of the table *pmd maps at
 * zero, before it retries; a test uses it to finish the free that the
 * racing put started, deterministically. NULL outside tests. */
extern void (*pte_ref_zero_hook)(struct mm_struct *mm, pmd_t *pmd);
/* Debug checks (kernel parameter pte_ref.debug, on by default): a table
 * freed with a non-none entry is a BUG; a put below zero too. */
extern bool pte_ref_debug;
/* The debug check of a page-table page about to be freed: every entry
 * none, or a "BUG:" line with the table and the first offending entry.
 * Returns whether it was empty (always true with the check off). */
bool pagetable_check_empty(struct page *table, unsigned long addr);

/* Unhooks the (empty, count zero) table *pmd maps and frees it after a
 * grace period: through tlb's RCU table batch when tlb is not NULL (a put
 * inside a teardown, the series' patch 15), else through call_rcu. */
void free_user_pte_table(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
			 struct mmu_gather *tlb);

/* The slow half of pte_alloc() in refcount mode (mm/pgtable.h). */
int pte_alloc_get(struct mm_struct *mm, pmd_t *pmd);

/* Walks mm and recomputes every PTE table's count from its entries (the
 * caller makes sure no walker holds a reference: counts then equal the
 * non-none entries); reports each difference with pr_err and returns
 * their number. 0 when the refcount is off. */
unsigned long pte_ref_verify(struct mm_struct *mm);

#endif
