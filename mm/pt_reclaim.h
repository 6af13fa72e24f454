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
 *             mmu_gather; nothing on the fault path;
 *   off       Linux 6.1: empty tables stay until munmap/exit frees them
 *             (free_pgtables).
 *
 * The mode is read without a lock: it changes only while no user mm
 * exists, so every table of every mm lives its whole life under one
 * mode. */
#ifndef MM_PT_RECLAIM_H
#define MM_PT_RECLAIM_H

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
/* Switches the mode: 0, or -EBUSY while a user mm exists (its tables were
 * made under the old mode). */
int pte_reclaim_set_mode(enum pte_reclaim_mode mode);

#endif
