/* Which design frees empty user page tables, chosen at boot
 * (pte_reclaim=refcount|scan|off) and in /proc/sys/vm/pte_reclaim while no
 * user address space exists:
 *
 *   refcount  Qi Zheng's 2021 series (mm/pte_ref.[ch]): every PTE table
 *             counts its non-none entries plus the walkers holding it and
 *             is freed, after an RCU grace period, when the count drops to
 *             zero, whoever drops it (zap, munmap, MADV_DONTNEED, a fault
 *             that lost a race);
 *   scan      Linux 6.14's CONFIG_PT_RECLAIM (mm/pt_reclaim.c): after
 *             MADV_DONTNEED zapped a range covering a whole PTE table, the
 *             table is checked empty under its locks and freed through the
 *             mmu_gather; nothing on the fault path. Beyond mainline, the
 *             PMD tables such a MADV_DONTNEED emptied go too (the PMD
 *             extension, under the mmap write lock taken by trylock);
 *   off       Linux 6.1: empty tables stay until munmap/exit frees them
 *             (free_pgtables).
 *
 * The mode is read without a lock: it changes only while no user mm
 * exists (the count of live user mms, mm/mmu_context.c, is checked and the
 * mode written under the lock that mm_alloc takes to count a new mm), so
 * every table of every mm lives its whole life under one mode. */
#ifndef MM_PT_RECLAIM_H
#define MM_PT_RECLAIM_H

#include "arch/x86_64/pgtable.h"
#include "kernel/types.h"

enum pte_reclaim_mode {
	PTE_RECLAIM_OFF,
	PTE_RECLAIM_SCAN,
	PTE_RECLAIM_REFCOUNT,
};

extern enum pte_reclaim_mode pte_reclaim_mode;

static inline bool pte_ref_enabled(void) { return pte_reclaim_mode == PTE_RECLAIM_REFCOUNT; }
static inline bool pt_reclaim_scan_enabled(void) { return pte_reclaim_mode == PTE_RECLAIM_SCAN; }

/* "refcount", "scan" or "off". */
const char *pte_reclaim_mode_name(enum pte_reclaim_mode mode);
/* The mode a word names ("scan", or "scan\n" as echo writes it: Linux's
 * proc_dostring drops one trailing newline); 0, or -EINVAL for anything
 * else. */
int pte_reclaim_parse_mode(const char *buf, size_t len, enum pte_reclaim_mode *mode);
/* Switches the mode: 0, or -EBUSY while a user mm exists (its tables were
 * made under the old mode). Setting the mode in force always succeeds. */
int pte_reclaim_set_mode(enum pte_reclaim_mode mode);

/* --- the scan design (Linux 6.14's mm/pt_reclaim.c) ------------------------ */

struct mm_struct;
struct mmu_gather;

/* Linux's reclaim_pt_is_enabled: whether zap_pte_range, having zapped
 * [start, end) of one PTE table for a caller that asked for it (the
 * reclaim_pt of its zap_details: MADV_DONTNEED and MADV_DONTNEED_LOCKED),
 * should try to free the table: only in scan mode, and only when the range
 * covered the whole table (a partial zap leaves entries it did not look
 * at). */
static inline bool reclaim_pt_is_enabled(unsigned long start, unsigned long end, bool reclaim_pt)
{
	return reclaim_pt && pt_reclaim_scan_enabled() && end - start >= PMD_SIZE;
}
/* Linux's try_to_free_pte: under the PMD lock and the table's PTE lock,
 * if all 512 entries of the PTE table *pmd points to are none, clears the
 * PMD and hands the table to tlb (freed after the flush and, once the
 * gather's table batch waits for one, an RCU grace period). addr is any
 * address the table covers. The caller holds the mmap lock (read at
 * least) and no page-table lock. */
void try_to_free_pte(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
		     struct mmu_gather *tlb);

/* The PMD extension (mmlab's, not mainline's): called by madvise after
 * MADV_DONTNEED of [start, end) dropped the mmap read lock. In scan mode,
 * when the range could have freed a PTE table (at least PMD_SIZE long), and
 * in refcount mode (madvise calls it when the zap freed a PTE table), if
 * mmap_write_trylock() succeeds, frees every PMD table of the range whose
 * 512 entries are all none (PUD entry cleared, table through an
 * mmu_gather). The caller holds no mmap lock. */
void try_to_free_pmd_tables(struct mm_struct *mm, unsigned long start, unsigned long end);

/* What the scan design did since boot (atomic counters, for tests and the
 * docs). */
struct pt_reclaim_stats {
	unsigned long pte_tables_freed;   /* by try_to_free_pte */
	unsigned long pte_tables_busy;    /* checked and found a non-none entry */
	unsigned long pmd_tables_freed;   /* by try_to_free_pmd_tables */
	unsigned long pmd_trylock_failed; /* the write trylock failed: left */
};
void pt_reclaim_stats_read(struct pt_reclaim_stats *out);

#endif
