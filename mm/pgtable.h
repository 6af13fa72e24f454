/* User page tables: the one way to reach a level, to allocate one, and to
 * walk a range, with Linux's names and contracts.
 *
 *   pgd = pgd_offset(mm, addr);               // never fails
 *   pud = pud_offset(pgd, addr);              // only when !pgd_none(*pgd)
 *   pmd = pmd_offset(pud, addr);              // only when !pud_none(*pud)
 *   pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
 *   if (pte) { ...; pte_unmap_unlock(pte, ptl); }
 *
 * pte_offset_map() returns NULL when the PMD holds no PTE table (none, or
 * a huge PMD that maps 2 MiB itself): Linux 6.5's contract, which the
 * refcounted PTE tables need (a table may go away between two reads of the
 * PMD, so only the function that maps it may decide it is there). Nothing
 * else turns a PMD into a PTE-table address.
 *
 * Ranges are stepped with p?d_addr_end (below), and every
 * range walker (zap, change_protection) goes through walk_pmd_range(), the
 * one place that decides what a PMD holds: the huge-PMD rule below.
 *
 * The huge-PMD rule. A huge PMD (a THP: mm/huge_memory.c makes them at
 * write faults, with a PTE table deposited beside each) is one with
 * _PAGE_PSE (pmd_trans_huge), present or PROT_NONE (mprotect takes
 * _PAGE_PRESENT away, never _PAGE_PSE); each walker treats one thus:
 *   - lookups (pte_offset_map, pte_offset_map_lock, pte_alloc_map): no PTE
 *     table here, NULL;
 *   - allocation (pte_alloc, __pte_alloc, pmd_install): INSTALLED_HUGE_PMD,
 *     never -ENOMEM and never a PTE table installed over it;
 *   - faults (handle_mm_fault): an access the PMD allows is spurious; a
 *     write to a read-only huge PMD of a writable VMA is
 *     do_huge_pmd_wp_page (the THP reused, or the PMD split);
 *   - zap (unmap_page_range, zap_page_range, exit): all 2 MiB: zap_huge_pmd
 *     clears it, uncounts its HPAGE_PMD_NR pages, gives its order-9 page
 *     to the mmu_gather and frees its deposited table; part of it: split
 *     first (split_huge_pmd), then the part zapped entry by entry;
 *   - change_protection: all 2 MiB: change_huge_pmd sets the new
 *     protection on the whole PMD; part of it: split first, then entry by
 *     entry;
 *   - mremap: moved whole as one entry when the step covers all of it
 *     and the destination PMD is none, else split and moved entry by entry;
 *   - get_user_pages: split first (no compound refcount in mmlab);
 *   - free_pgtables: a huge PMD is a leaf, never a PTE table: one still
 *     there (its VMA was not zapped first: a caller's bug) is reported and
 *     zapped, and the PMD table above it is freed as usual.
 *
 * Locking (the whole picture is at the top of mm/mm_types.h): walkers
 * hold mm->mmap_lock, for reading at least, so no upper table they reach
 * is freed under them; a PTE table is kept by the mmap_lock in the off
 * and scan modes and by a reference in refcount mode (mm/pte_ref.h:
 * walkers under the read lock enter it with pte_tryget_map[_lock] or
 * pte_alloc and leave with pte_put; a table goes when its count drops to
 * zero, unhooked under pmd_lockptr and freed after an RCU grace period).
 * Every page-table page that was reachable is freed after a grace period
 * (pagetable_free_deferred), for the walkers that hold no reference. Installing a table (pud_alloc, pmd_alloc, pmd_install)
 * and changing a huge PMD take mm->page_table_lock (pmd_lockptr: Linux
 * without split PMD locks). Changing a PTE takes its table's own lock,
 * pte_lockptr(): a spinlock in the PTE table's struct page (Linux's split
 * PTE locks, ptlock_ptr), made by pte_alloc_one (ptlock_init) and checked
 * free when the table is freed (ptlock_free), so faults on different
 * tables of one mm run on several CPUs without meeting. A PTE lock is a
 * spinlock: nothing that may sleep runs under it (pages are allocated
 * before it is taken), and a full mmu_gather batch is flushed after it is
 * dropped. */
#ifndef MM_PGTABLE_H
#define MM_PGTABLE_H

#include "arch/x86_64/pgtable.h"
#include "kernel/spinlock.h"
#include "mm/mm_types.h"
#include "mm/page.h"
#include "mm/pt_reclaim.h"
#include "mm/pte_ref.h"
#include "mm/clear_page.h"

#define HPAGE_PMD_ORDER (PMD_SHIFT - PAGE_SHIFT)
#define HPAGE_PMD_NR (1ul << HPAGE_PMD_ORDER)

/* Linux's set_pte_at()/set_pmd_at(): writing an entry that maps a page
 * into a user mm, for the fault and migration paths. With CONFIG_DEBUG_VM
 * they first check that this CPU has no unfenced uncached clear (the fence
 * rule of mm/clear_page.h). */
static inline void set_pte_at(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	(void)mm;
	clear_page_check_coherent(addr);
	set_pte(ptep, pte);
}
static inline void set_pmd_at(struct mm_struct *mm, unsigned long addr, pmd_t *pmdp, pmd_t pmd)
{
	(void)mm;
	clear_page_check_coherent(addr);
	set_pmd(pmdp, pmd);
}

/* What __pte_alloc()/pmd_install() did with the PMD (Qi Zheng's 2021
 * series): it now points to a PTE table (ours or one another walker
 * installed first), or it maps a huge page (so there is no PTE table to
 * walk). Negative errno on failure. */
enum pmd_installed_type {
	INSTALLED_PTE,
	INSTALLED_HUGE_PMD,
};

/* --- stepping a range ----------------------------------------------------- */

/* Range stepping (Linux's p?d_addr_end): the next boundary of the level
 * after addr, or end if that comes first. The comparison is made minus
 * one so that a boundary that wraps to 0 at the top of the address space
 * still counts as past end. */
static inline unsigned long pgd_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + PGDIR_SIZE) & PGDIR_MASK;
	return boundary - 1 < end - 1 ? boundary : end;
}
static inline unsigned long pud_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + PUD_SIZE) & PUD_MASK;
	return boundary - 1 < end - 1 ? boundary : end;
}
static inline unsigned long pmd_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + PMD_SIZE) & PMD_MASK;
	return boundary - 1 < end - 1 ? boundary : end;
}

/* Walks over page tables step over empty stretches eight entries (one
 * 64-byte line) at a time: the munmap of a large range that was touched
 * in few places (mm selftests' virtual_address_range unmaps 1 GiB ranges
 * 131,072 times, each with one page mapped) reads mostly none entries
 * (the whole entry 0). When the entry at *pmd, the one for addr, is none,
 * pmd_skip_none_run moves over it and every none entry after it before
 * end: *next is the address after the last, *pmd the last (the caller's
 * loop steps past it), and it returns true. Eight entries are read at
 * once from a line boundary on, while eight whole entries lie before end;
 * end is the end of the caller's walk, at most the table's. The entry it
 * stops at is read again by the caller, which must take it as it finds
 * it then (a table may be emptied meanwhile). */
#define PMD_RUN_ENTRIES 8
#define PMD_RUN_SIZE (PMD_RUN_ENTRIES * PMD_SIZE)
#define PTE_RUN_ENTRIES 8
/* Whether the eight entries of a 64-byte line are all 0: written out, so
 * that each entry is one OR with its load folded in (a loop, or a
 * READ_ONCE per entry, takes three or four instructions an entry). Each
 * entry is read once; the caller reads the entry it stops at again. */
static inline bool table_line_empty(const void *line)
{
	const u64 *e = line;
	return !(e[0] | e[1] | e[2] | e[3] | e[4] | e[5] | e[6] | e[7]);
}
static inline bool pmd_skip_none_run(pmd_t **pmd, unsigned long addr, unsigned long end,
				     unsigned long *next)
{
	pmd_t *p = *pmd;
	if (!pmd_none(pmdp_get(p)))
		return false;
	unsigned long a = pmd_addr_end(addr, end);
	for (p++; a != end; p++) {
		if (!((uintptr_t)p & (PMD_RUN_ENTRIES * sizeof(pmd_t) - 1)) &&
		    end - 1 - a >= PMD_RUN_SIZE - 1 && table_line_empty(p)) {
			p += PMD_RUN_ENTRIES - 1;
			a += PMD_RUN_SIZE;
			continue;
		}
		if (!pmd_none(pmdp_get(p)))
			break;
		a = pmd_addr_end(a, end);
	}
	*next = a;
	*pmd = p - 1;
	return true;
}

/* The same over a PTE table, for zap_pte_range: when the entry at *pte,
 * the one for *addr, is none, moves *pte and *addr to the last none entry
 * before end (the caller's loop steps past it) and returns true. */
static inline bool pte_skip_none_run(pte_t **pte, unsigned long *addr, unsigned long end)
{
	pte_t *p = *pte;
	if (!pte_none(ptep_get(p)))
		return false;
	unsigned long a = *addr + PAGE_SIZE;
	for (p++; a != end; p++, a += PAGE_SIZE) {
		if (!((uintptr_t)p & (PTE_RUN_ENTRIES * sizeof(pte_t) - 1)) &&
		    end - a >= PTE_RUN_ENTRIES * PAGE_SIZE && table_line_empty(p)) {
			p += PTE_RUN_ENTRIES - 1;
			a += (PTE_RUN_ENTRIES - 1) * PAGE_SIZE;
			continue;
		}
		if (!pte_none(ptep_get(p)))
			break;
	}
	*pte = p - 1;
	*addr = a - PAGE_SIZE;
	return true;
}

/* --- reaching a level ----------------------------------------------------- */

static inline pgd_t *pgd_offset(struct mm_struct *mm, unsigned long addr)
{
	return mm->pgd + pgd_index(addr);
}
static inline pud_t *pud_offset(pgd_t *pgd, unsigned long addr)
{
	return pgd_pgtable(pgdp_get(pgd)) + pud_index(addr);
}
static inline pmd_t *pmd_offset(pud_t *pud, unsigned long addr)
{
	return pud_pgtable(pudp_get(pud)) + pmd_index(addr);
}
/* The PMD entry for addr without allocating, or NULL when a level above
 * it is missing (Linux's mm_find_pmd). */
pmd_t *mm_find_pmd(struct mm_struct *mm, unsigned long addr);

/* The PTE for addr in the PTE table *pmd points to; NULL when *pmd holds
 * no PTE table (none or huge). Every successful call is paired with
 * pte_unmap() (nothing: what keeps the table is the mmap_lock, or the
 * caller's reference in refcount mode, dropped by pte_put afterwards). */
pte_t *pte_offset_map(pmd_t *pmd, unsigned long addr);
static inline void pte_unmap(pte_t *pte) { (void)pte; }
/* The split PTE lock of a page-table page (Linux's ptlock_ptr), made
 * when the table is allocated (ptlock_init) and checked free, and wiped,
 * when it is freed (ptlock_free: a table freed with its lock held is
 * reported as a BUG). */
static inline spinlock_t *ptlock_ptr(struct page *table) { return &table->ptl; }
static inline void ptlock_init(struct page *table) { spin_lock_init(&table->ptl); }
void ptlock_free(struct page *table);
/* The lock that protects the PTEs of the table *pmd points to (the caller
 * knows *pmd holds a PTE table and holds the mmap_lock, which keeps it). */
static inline spinlock_t *pte_lockptr(struct mm_struct *mm, pmd_t *pmd)
{
	(void)mm;
	return ptlock_ptr(pfn_to_page(pmd_pfn(pmdp_get(pmd))));
}
/* The lock of a PMD entry: for installing a PTE table in it and for a
 * huge PMD (Linux's pmd_lockptr without split PMD locks). */
static inline spinlock_t *pmd_lockptr(struct mm_struct *mm, pmd_t *pmd)
{
	(void)pmd;
	return &mm->page_table_lock;
}
/* pte_offset_map() with the table's PTE lock taken (*ptlp), or NULL with
 * nothing taken. The PMD is read again under the lock: a table removed in
 * between is never returned. */
pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
			   spinlock_t **ptlp);
static inline void pte_unmap_unlock(pte_t *pte, spinlock_t *ptl)
{
	spin_unlock(ptl);
	pte_unmap(pte);
}

/* --- allocating a level ----------------------------------------------------- */

/* The PUD/PMD entry for addr, allocating the table that holds it if the
 * entry above is none; NULL when memory is short (Linux's contract). */
pud_t *pud_alloc(struct mm_struct *mm, pgd_t *pgd, unsigned long addr);
pmd_t *pmd_alloc(struct mm_struct *mm, pud_t *pud, unsigned long addr);

/* Installs a new PTE table (from pte_alloc_one) in *pmd unless a walker got
 * there first, under the PMD's lock; returns which kind of entry the PMD
 * holds afterwards. The caller frees the table it passed if it was not
 * used (pmd_install sets *new to NULL when it was). */
enum pmd_installed_type pmd_install(struct mm_struct *mm, pmd_t *pmd, struct page **new);
/* Allocates a PTE table for *pmd; returns INSTALLED_PTE, INSTALLED_HUGE_PMD
 * or -ENOMEM. */
int __pte_alloc(struct mm_struct *mm, pmd_t *pmd);
/* __pte_alloc() when *pmd is none, else what it holds: INSTALLED_PTE,
 * INSTALLED_HUGE_PMD or -ENOMEM, three answers a caller can tell apart
 * (the 2021 series' pte_alloc). In refcount mode INSTALLED_PTE comes with
 * a reference on the table, which the caller drops with pte_put() (patch
 * 07 of the series: pte_alloc_get, mm/pte_ref.c); in the other modes the
 * old path, unchanged but for the test of the mode. */
static inline int pte_alloc(struct mm_struct *mm, pmd_t *pmd)
{
	if (pte_ref_enabled())
		return pte_alloc_get(mm, pmd);
	pmd_t val = pmdp_get(pmd);
	if (pmd_none(val))
		return __pte_alloc(mm, pmd);
	return pmd_trans_huge(val) ? INSTALLED_HUGE_PMD : INSTALLED_PTE;
}
/* pte_alloc() then pte_offset_map(): NULL when memory is short or the PMD
 * maps a huge page; a caller that must tell those apart calls pte_alloc()
 * itself (the fault path does). A non-NULL answer holds pte_alloc()'s
 * reference (refcount mode): pte_unmap() then pte_put(). */
pte_t *pte_alloc_map(struct mm_struct *mm, pmd_t *pmd, unsigned long addr);

/* A zeroed page-table page with PG_table set, or NULL; and the free of one
 * that never got installed (an installed one goes through the mmu_gather:
 * free_pgtables). */
struct page *pte_alloc_one(struct mm_struct *mm);
void pte_free(struct mm_struct *mm, struct page *table);
/* The destructor of every page-table page (ptlock_free, PG_table cleared,
 * the page freed): pte_free's, the mmu_gather's and the RCU free's. */
void pagetable_free(struct page *table);
/* pagetable_free after an RCU grace period (call_rcu; the rcu_head lives
 * in the page's pt_pad words): for every table that was reachable from a
 * live PMD/PUD/PGD, since walkers that hold no reference (pte_try_get's
 * window, get_user_pages_fast) may still read it. */
void pagetable_free_deferred(struct page *table);
/* Tables queued by pagetable_free_deferred and not freed yet (a test that
 * counts free pages waits for them: rcu_barrier). */
unsigned long nr_pagetables_rcu_pending(void);

/* Counting installed tables: mm->pgtables_bytes (VmPTE), mm->nr_ptes (the
 * PTE level) and the system-wide PageTables of /proc/meminfo. */
void mm_account_pgtable(struct mm_struct *mm, long delta, bool pte_level);
unsigned long nr_user_pagetable_pages(void);

/* --- walking a range ----------------------------------------------------------- */

/* A range walk: walk_pmd_range() visits every PMD of [addr, end) that is
 * not none, skipping a missing table at whatever level it misses (a huge
 * sparse mapping costs what it has mapped), and hands it to exactly one of
 * the two callbacks; [addr, next) is the part of the range under that PMD.
 * Both callbacks are required: a walk without huge_pmd is refused (reported,
 * nothing walked) rather than silently skipping huge PMDs, which is how the
 * old walkers leaked them. */
struct pmd_walk {
	struct mm_struct *mm;
	void (*pte_table)(struct pmd_walk *walk, pmd_t *pmd, unsigned long addr,
			  unsigned long next);
	void (*huge_pmd)(struct pmd_walk *walk, pmd_t *pmd, unsigned long addr,
			 unsigned long next);
	void *private;
};
void walk_pmd_range(struct pmd_walk *walk, unsigned long addr, unsigned long end);

#endif
