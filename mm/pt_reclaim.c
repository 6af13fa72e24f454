/* The pte_reclaim mode (mm/pt_reclaim.h: the switch, the command line, the
 * sysctl) and the scan design of freeing empty user page tables, Linux
 * 6.14's CONFIG_PT_RECLAIM (Qi Zheng's 2024 series "synchronously scan and
 * reclaim empty user PTE pages", mainline mm/pt_reclaim.c), with mmlab's
 * PMD extension.
 *
 * The scan design. MADV_DONTNEED (and MADV_DONTNEED_LOCKED; not MADV_FREE,
 * nor munmap, whose free_pgtables frees the tables anyway) runs under the
 * mmap READ lock, beside faults. After zap_pte_range has cleared a range
 * covering a whole PTE table, try_to_free_pte takes the PMD lock and the
 * table's PTE lock (in that order: mm/mm_types.h's page_table_lock -> PTE
 * lock), checks all 512 entries are none, clears the PMD and gives the
 * table to the zap's mmu_gather, which frees it after the TLB flush (and,
 * with the gather's RCU table batch, after a grace period). Nothing on the
 * fault path counts anything. Invariant kept: a PTE table is unhooked only
 * with both its locks held and no entry set, so a PTE set under the PTE
 * lock is never lost, and a walker that read the PMD before the clear
 * finds, once it holds the PTE lock, that the PMD moved
 * (pte_offset_map_lock re-checks it) and retries from the PMD.
 *
 * Why that is safe under the READ lock (Linux 6.5+'s contract, which mmlab
 * keeps in mm/pgtable.h): nobody turns a PMD into a table address except
 * pte_offset_map[_lock], which re-read the PMD; the fault path
 * (handle_mm_fault) re-reads it under the PTE lock (fault_install_pte) and
 * returns to refault when the table went; a lockless read of a PTE
 * (pte_offset_map without the lock, get_user_pages_fast) is covered by the
 * gather's RCU-deferred table free (mm/mmu_gather.c) and an RCU read side:
 * get_user_pages_fast takes rcu_read_lock(); pte_offset_map/pte_unmap take
 * none (Linux's take rcu_read_lock/unlock), because mmlab's kernel is not
 * preemptible and its RCU waits for every CPU to pass a context switch,
 * cond_resched, idle or user mode (kernel/rcu.c): a walker that does not
 * sleep between pte_offset_map and pte_unmap, which none does, is inside
 * a read side all along.
 *
 * Where mmlab differs from mainline:
 *   - mainline's zap_pte_range has a fast path (try_get_and_clear_pmd: a
 *     spin_trylock of the PMD lock while the PTE lock is still held, when
 *     the zap itself never dropped it); mmlab always takes the slow path
 *     (try_to_free_pte: both locks again and the 512 entries re-read), so
 *     that the hook in mm/teardown.c stays a few lines. Cost: one more
 *     lock round and 512 reads per table freed;
 *   - mainline skips a table when the zap left an entry it may not clear
 *     (uffd-wp markers, device-private entries: "any_skipped"); mmlab has
 *     none of those, so every zapped entry becomes none;
 *   - the mode is a run-time choice (pt_reclaim_scan_enabled()), not a
 *     build option (CONFIG_PT_RECLAIM).
 *
 * The PMD extension (scan and refcount modes; try_to_free_pmd_tables).
 * Mainline leaves
 * empty PMD tables behind (the cover letter's 50 GiB workload: 50 of them,
 * 200 kB). A PMD table cannot go under the mmap READ lock the way a PTE
 * table does: a fault holds a pmd_t * into it from pmd_alloc() to
 * pmd_install(), across pte_alloc_one(), which may sleep, and writes the
 * new PTE table into it without re-reading the PUD. So the PMD tables are
 * freed under the mmap WRITE lock, which no fault, populate, madvise or
 * procfs walker holds beside us: after MADV_DONTNEED dropped its read lock,
 * madvise calls try_to_free_pmd_tables(), which takes the write lock only
 * with mmap_write_trylock() (a thread faulting or waiting for the lock is
 * never made to wait for this clean-up; the tables are left then, and a
 * later MADV_DONTNEED that frees a PTE table, or munmap/exit, frees them)
 * and frees, through an mmu_gather, each PMD table of the range whose 512 entries are all none,
 * clearing its PUD entry under page_table_lock (the lock __pmd_alloc
 * installs under). The lockless walker (get_user_pages_fast) holds no
 * mmap lock; it is covered, as for PTE tables, by the RCU-deferred free of
 * the gather's table batch. The refcount design uses the same clean-up
 * for its PMD tables rather than a count of its own: counting a PMD table's
 * walkers would mean a reference taken by every walker that steps from a
 * PUD entry into it (the fault across its sleeping allocation, every range
 * walk, get_user_pages_fast), a second series' worth of change; the write
 * trylock gives the same result for the cover letter's workload. In both
 * modes madvise calls it only when a PTE table of the mm was freed during
 * the MADV_DONTNEED (mm->pte_tables_reclaimed moved), or when an earlier
 * call lost its trylock (mm->pmd_reclaim_start/end: that range is scanned
 * too, so a table left then goes with the next DONTNEED), so a DONTNEED
 * that emptied nothing pays three reads. Cost, paid by such a
 * MADV_DONTNEED: a write trylock and unlock of
 * mmap_lock, 512 reads per PMD table of the range, and, when the range
 * emptied its PMD table (the workload: every chunk), one table freed and
 * allocated again by the next fault there (a page allocation, a 4 KiB
 * zeroing and a TLB flush of the range per chunk). */
#include "mm/pt_reclaim.h"
#include "kernel/sysctl.h"
#include "kernel/cmdline.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sysctl.h"
#include "lib/string.h"
#include "mm/interval_tree.h"
#include "mm/mmap.h"
#include "mm/mmap_lock.h"
#include "mm/mmu_context.h"
#include "mm/mmu_gather.h"
#include "mm/page.h"
#include "mm/pgtable.h"

enum pte_reclaim_mode pte_reclaim_mode = PTE_RECLAIM_REFCOUNT;

/* --- the mode ----------------------------------------------------------------- */

static const char *const mode_names[] = {
	[PTE_RECLAIM_OFF] = "off",
	[PTE_RECLAIM_SCAN] = "scan",
	[PTE_RECLAIM_REFCOUNT] = "refcount",
};

const char *pte_reclaim_mode_name(enum pte_reclaim_mode mode)
{
	if ((unsigned)mode < ARRAY_SIZE(mode_names))
		return mode_names[mode];
	return "?";
}

int pte_reclaim_parse_mode(const char *buf, size_t len, enum pte_reclaim_mode *mode)
{
	if (len && buf[len - 1] == '\n')
		len--;
	for (unsigned i = 0; i < ARRAY_SIZE(mode_names); i++) {
		if (strlen(mode_names[i]) == len && !memcmp(buf, mode_names[i], len)) {
			*mode = (enum pte_reclaim_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

int pte_reclaim_set_mode(enum pte_reclaim_mode mode)
{
	if ((unsigned)mode >= ARRAY_SIZE(mode_names))
		return -EINVAL;
	if (__atomic_load_n(&pte_reclaim_mode, __ATOMIC_RELAXED) == mode)
		return 0;
	/* Every table of an mm must live its whole life under one mode (a
	 * refcounted table counts its entries from the start): no mm may
	 * exist, nor be made, while the mode changes. */
	if (!hold_off_new_user_mms_if_none())
		return -EBUSY;
	__atomic_store_n(&pte_reclaim_mode, mode, __ATOMIC_RELEASE);
	allow_new_user_mms();
	return 0;
}

/* /proc/sys/vm/pte_reclaim: the mode's word and a newline; a write takes
 * a word (-EINVAL otherwise) and gives -EBUSY while a user mm exists. */
static int pte_reclaim_handler(const struct ctl_table *table, bool write, struct seq_buf *m, const char *buf,
			       size_t len)
{
	(void)table;
	if (!write) {
		seq_buf_printf(m, "%s\n", pte_reclaim_mode_name(pte_reclaim_mode));
		return 0;
	}
	enum pte_reclaim_mode mode;
	int err = pte_reclaim_parse_mode(buf, len, &mode);
	if (!err)
		err = pte_reclaim_set_mode(mode);
	if (!err)
		pr_info("pte_reclaim: mode %s (/proc/sys/vm/pte_reclaim)\n", pte_reclaim_mode_name(mode));
	return err;
}

SYSCTL_ENTRY(proc_sys_vm_dir, pte_reclaim, .proc_handler = pte_reclaim_handler);

/* pte_reclaim=refcount|scan|off on the command line: read as a string,
 * checked once the command line has been parsed (a late initcall, before
 * the benchmarks, the test run and the boot programs make any user mm). */
static char pte_reclaim_param[16];
kernel_param_string("pte_reclaim", pte_reclaim_param,
		    "which design frees empty user page tables: refcount (default), scan or off");

static int pte_reclaim_init(void)
{
	if (pte_reclaim_param[0]) {
		enum pte_reclaim_mode mode;
		if (pte_reclaim_parse_mode(pte_reclaim_param, strlen(pte_reclaim_param), &mode))
			pr_warn("pte_reclaim: unknown mode \"%s\" (expected refcount, scan or off); "
				"%s stays\n", pte_reclaim_param, pte_reclaim_mode_name(pte_reclaim_mode));
		else if (pte_reclaim_set_mode(mode))
			pr_warn("pte_reclaim: a user mm exists already; %s stays\n",
				pte_reclaim_mode_name(pte_reclaim_mode));
	}
	pr_info("pte_reclaim: mode %s\n", pte_reclaim_mode_name(pte_reclaim_mode));
	return 0;
}
late_initcall(pte_reclaim_init);

/* --- the scan design ------------------------------------------------------------ */

static struct pt_reclaim_stats stats;

static void stat_inc(unsigned long *counter) { __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED); }

void pt_reclaim_stats_read(struct pt_reclaim_stats *out)
{
	out->pte_tables_freed = __atomic_load_n(&stats.pte_tables_freed, __ATOMIC_RELAXED);
	out->pte_tables_busy = __atomic_load_n(&stats.pte_tables_busy, __ATOMIC_RELAXED);
	out->pmd_tables_freed = __atomic_load_n(&stats.pmd_tables_freed, __ATOMIC_RELAXED);
	out->pmd_trylock_failed = __atomic_load_n(&stats.pmd_trylock_failed, __ATOMIC_RELAXED);
}

/* Linux's free_pte (pte_free_tlb + mm_dec_nr_ptes): the table, already
 * unhooked from its PMD, is counted out of VmPTE and queued in the gather,
 * which frees it after the flush of the 2 MiB it mapped. */
static void free_pte(struct mm_struct *mm, unsigned long addr, struct mmu_gather *tlb,
		     pmd_t pmdval)
{
	mm_account_pgtable(mm, -1, true);
	__atomic_add_fetch(&mm->pte_tables_reclaimed, 1, __ATOMIC_RELAXED);
	tlb_remove_table(tlb, pfn_to_page(pmd_pfn(pmdval)), addr & PMD_MASK, PMD_SIZE);
	stat_inc(&stats.pte_tables_freed);
}

void try_to_free_pte(struct mm_struct *mm, pmd_t *pmd, unsigned long addr, struct mmu_gather *tlb)
{
	addr &= PMD_MASK;
	/* The PMD lock first, then the PTE lock (Linux's pmd_lock, then
	 * pte_offset_map_rw_nolock + spin_lock_nested): with the PMD lock
	 * held, no table can be installed in or removed from this PMD, and
	 * pte_offset_map_lock's re-check of the PMD under the PTE lock
	 * cannot fail unless the PMD changed before we held it. */
	spinlock_t *pml = pmd_lockptr(mm, pmd);
	spin_lock(pml);
	pmd_t pmdval = pmdp_get(pmd);
	spinlock_t *ptl;
	pte_t *start_pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
	if (!start_pte)
		goto out_pml; /* none (a racing zap freed it) or huge */
	for (unsigned i = 0; i < PTRS_PER_TABLE; i++) {
		if (!pte_none(ptep_get(start_pte + i))) {
			/* A fault refilled it after the zap dropped the lock. */
			stat_inc(&stats.pte_tables_busy);
			pte_unmap_unlock(start_pte, ptl);
			goto out_pml;
		}
	}
	/* Under both locks: a fault waiting for the PTE lock re-reads the PMD
	 * once it has it and finds it none; one that has not read the PMD
	 * yet finds it none and installs a new table (under the PMD lock,
	 * after us). */
	pmd_clear(pmd);
	pte_unmap_unlock(start_pte, ptl);
	spin_unlock(pml);
	free_pte(mm, addr, tlb, pmdval);
	return;
out_pml:
	spin_unlock(pml);
}

/* --- the PMD extension ------------------------------------------------------------ */

/* Whether a VMA of a file (in an i_mmap, mm/interval_tree.h) meets the
 * PUD entry's span at addr: unmap_mapping_range walks such a VMA's
 * tables holding only the i_mmap lock, not this mm's mmap_lock, so their
 * PMD table stays until free_pgtables, which comes after the VMA left
 * the tree. */
static bool pud_span_has_file_vma(struct mm_struct *mm, unsigned long addr)
{
	unsigned long start = addr & PUD_MASK, end = start + PUD_SIZE;
	for (struct vm_area_struct *vma = find_vma(mm, start); vma && vma->vm_start < end; vma = vma->vm_next)
		if (vma_in_i_mmap(vma))
			return true;
	return false;
}

static bool pmd_table_empty(const pmd_t *table)
{
	for (unsigned i = 0; i < PTRS_PER_TABLE; i++)
		if (!pmd_none(pmdp_get((pmd_t *)&table[i])))
			return false;
	return true;
}

void try_to_free_pmd_tables(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	if (pte_reclaim_mode == PTE_RECLAIM_OFF)
		return;
	/* Only the user half: madvise may have been given a range past it
	 * (and refused it with -ENOMEM), and the kernel half's tables are
	 * shared by every mm. */
	if (end > TASK_SIZE)
		end = TASK_SIZE;
	/* madvise calls us only when a PTE table of the mm was freed during
	 * its MADV_DONTNEED. */
	if (start >= end)
		return;
	if (!mmap_write_trylock(mm)) {
		stat_inc(&stats.pmd_trylock_failed);
		/* Left for the next MADV_DONTNEED of the mm. */
		spin_lock(&mm->page_table_lock);
		if (mm->pmd_reclaim_end == 0) {
			mm->pmd_reclaim_start = start;
			mm->pmd_reclaim_end = end;
		} else {
			mm->pmd_reclaim_start = min(mm->pmd_reclaim_start, start);
			mm->pmd_reclaim_end = max(mm->pmd_reclaim_end, end);
		}
		spin_unlock(&mm->page_table_lock);
		return;
	}
	/* From here no fault, populate, madvise or procfs walker is inside
	 * this mm's tables: each holds mmap_lock. A range an earlier call had
	 * to leave is scanned with this one (their span: the scan steps a PUD
	 * entry at a time, so a gap between them costs little). */
	spin_lock(&mm->page_table_lock);
	if (mm->pmd_reclaim_end) {
		start = min(start, mm->pmd_reclaim_start);
		end = max(end, mm->pmd_reclaim_end);
		mm->pmd_reclaim_start = mm->pmd_reclaim_end = 0;
	}
	spin_unlock(&mm->page_table_lock);
	struct mmu_gather tlb;
	tlb_gather_mmu(&tlb, mm);
	unsigned long next;
	for (unsigned long addr = start; addr < end; addr = next) {
		pgd_t *pgd = pgd_offset(mm, addr);
		if (pgd_none(pgdp_get(pgd))) {
			next = pgd_addr_end(addr, end);
			continue;
		}
		next = pud_addr_end(addr, end);
		pud_t *pud = pud_offset(pgd, addr);
		pud_t pudval = pudp_get(pud);
		/* None, or (never in a user mm today) a huge PUD: no table. */
		if (pud_none(pudval) || (pud_val(pudval) & _PAGE_PSE))
			continue;
		pmd_t *table = pud_pgtable(pudval);
		if (!pmd_table_empty(table) || pud_span_has_file_vma(mm, addr))
			continue;
		spin_lock(&mm->page_table_lock);
		pud_clear(pud);
		spin_unlock(&mm->page_table_lock);
		mm_account_pgtable(mm, -1, false);
		tlb_remove_table(&tlb, virt_to_page(table), addr & PUD_MASK, PUD_SIZE);
		stat_inc(&stats.pmd_tables_freed);
	}
	tlb_finish_mmu(&tlb);
	mmap_write_unlock(mm);
}
