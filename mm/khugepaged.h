/* khugepaged and MADV_COLLAPSE (Linux 6.1's mm/khugepaged.c): turning a
 * PTE table of 4 KiB pages back into one THP mapped by a huge PMD, for
 * anonymous memory (mm/khugepaged_collapse.c) and for shmem, whose 512
 * page-cache pages become one huge page of the file, every mapping's PTE
 * table retracted (mm/khugepaged_file.c).
 *
 * The daemon: one kernel thread, "khugepaged", walks a list of mm_slots,
 * one per address space registered with it (khugepaged_enter_vma: a VMA
 * that became eligible under the sysfs modes, by MADV_HUGEPAGE or by a THP
 * fault; a fork of a registered mm registers the child). Each pass scans
 * pages_to_scan PTEs' worth (a PMD scanned counts 512, a VMA skipped one),
 * then sleeps scan_sleep_millisecs, or alloc_sleep_millisecs after a THP
 * allocation failed; full_scans counts the passes that reached the end of
 * the list. Each aligned 2 MiB of an eligible VMA whose PTE table has at
 * most max_ptes_none none (or zero-page) entries, max_ptes_swap swap
 * entries (mmlab has no swap: never any) and max_ptes_shared pages mapped
 * more than once, at least one writable entry and one young one, and no
 * page held beyond its mappings, is collapsed.
 *
 * MADV_COLLAPSE: the same collapse, now, on every aligned 2 MiB of the
 * range, by the caller: the sysfs `enabled` mode and the max_ptes_* limits
 * do not apply (VM_NOHUGEPAGE and PR_SET_THP_DISABLE do), nor the young
 * check. 0 when every 2 MiB is (or already was) a huge PMD; else -ENOMEM
 * (no THP), -EAGAIN (a page busy: try again) or -EINVAL (anything else: a
 * hole, an empty table, a page pinned), Linux's madvise_collapse_errno.
 * A tmpfs, memfd or shared anonymous VMA collapses its file's range
 * (mm/khugepaged_file.c); any other file VMA is -EINVAL.
 *
 * The collapse (collapse_huge_page): the THP is allocated with the mmap
 * lock dropped, on the node most of the 4 KiB pages are on (Linux's
 * hpage_collapse_find_target_node: the pages' placement is where the VMA's
 * policy put them), then under the mmap lock for writing and the anon_vma
 * lock the VMA and PMD are checked again, the PMD is cleared and the TLB
 * flushed (pmdp_collapse_flush: a lockless get_user_pages that read the
 * old PMD sees it change and lets go), the pages are checked (isolate),
 * copied (zeroes for none entries), unmapped and put, and the huge PMD is
 * installed with the emptied PTE table as its deposit (Linux's
 * pgtable_trans_huge_deposit of pmd_pgtable(_pmd)), so no table is freed
 * or allocated in any pte_reclaim mode. */
#ifndef MM_KHUGEPAGED_H
#define MM_KHUGEPAGED_H

#include "mm/mm_types.h"

/* mm->flags bit: the mm has an mm_slot (Linux's MMF_VM_HUGEPAGE). */
#define MMF_VM_HUGEPAGE 17

/* The sysfs knobs (/sys/kernel/mm/transparent_hugepage/khugepaged/), with
 * Linux's defaults; tests set them directly, as the files do. */
extern unsigned int khugepaged_pages_to_scan;      /* 4096 (8 PMDs); > 0 */
extern unsigned int khugepaged_max_ptes_none;      /* 511; 0..511 */
extern unsigned int khugepaged_max_ptes_swap;      /* 64; 0..511 */
extern unsigned int khugepaged_max_ptes_shared;    /* 256; 0..511 */
extern unsigned int khugepaged_scan_sleep_millisecs;  /* 10000 */
extern unsigned int khugepaged_alloc_sleep_millisecs; /* 60000 */
extern int khugepaged_defrag;                      /* 1: GFP_TRANSHUGE, 0: _LIGHT */
unsigned int khugepaged_full_scans_read(void);
unsigned int khugepaged_pages_collapsed_read(void);

/* Linux 6.1's hugepage_vma_check(vma, vm_flags, smaps, in_pf,
 * enforce_sysfs), for collapse (in_pf false): may the VMA hold a THP?
 * enforce_sysfs: the `enabled` mode must allow it (khugepaged); without
 * it (MADV_COLLAPSE) only VM_NOHUGEPAGE and PR_SET_THP_DISABLE refuse.
 * An anonymous VMA without an anon_vma (never faulted) is refused unless
 * smaps. A shmem VMA: its offsets aligned as its addresses, then
 * shmem_is_huge (shmem_enabled and huge=, not `enabled`), forced without
 * enforce_sysfs (Linux's shmem_huge_enabled). */
bool hugepage_vma_check(struct vm_area_struct *vma, unsigned long vm_flags, bool smaps, bool enforce_sysfs);

/* Registers vma's mm with khugepaged when vma may be collapsed under the
 * sysfs modes with vm_flags (Linux's khugepaged_enter_vma). Under the
 * mmap lock. */
void khugepaged_enter_vma(struct vm_area_struct *vma, unsigned long vm_flags);
/* fork: the child mm is registered when the parent is (khugepaged_fork). */
void khugepaged_fork(struct mm_struct *mm, struct mm_struct *oldmm);
/* The last user of mm is gone (mmput, before exit_mmap): its slot goes
 * (Linux's khugepaged_exit); if khugepaged is scanning it, khugepaged
 * frees it and this waits for the scan to let go of the mmap lock. */
void khugepaged_exit(struct mm_struct *mm);

/* MADV_COLLAPSE on [start, end) of vma, under the mmap read lock, which it
 * may drop and take again (then *prev is NULL, as madvise's walk expects). */
int madvise_collapse(struct vm_area_struct *vma, struct vm_area_struct **prev, unsigned long start,
		     unsigned long end);

/* Wakes khugepaged (a knob changed, a test wants a pass now). */
void khugepaged_wake(void);
/* Sleeps until full_scans has reached target (tests: a number of whole
 * passes, never a time). */
void khugepaged_wait_full_scans(unsigned int target);
/* Whether mm has a slot (tests). */
bool khugepaged_mm_registered(struct mm_struct *mm);

#endif
