/* get_user_pages: references on the pages behind a range of the current
 * process's memory, so that the kernel can read or write them with no
 * page-table walk and no mmap_lock held (process_vm_readv/writev, and, in
 * Linux, direct I/O, RDMA, vhost...). Linux's names and contracts
 * (mm/gup.c, 6.x):
 *
 *   get_user_pages_fast(start, nr_pages, gup_flags, pages)
 *       the lockless walk first (gup_fast: no mmap_lock, no PTE lock, inside
 *       rcu_read_lock()), then the locked walk for whatever it could not
 *       take (gup_fast_fallback: mmap_read_lock, faults); returns the number
 *       of pages taken from start on (fewer than asked when a page could not
 *       be had), or a negative errno when not even the first one was;
 *   get_user_pages_fast_only(...)   the lockless walk alone, never faults;
 *   get_user_pages(start, ..., pages) the locked walk, the caller holding
 *       mmap_read_lock(current->mm).
 * Every page returned carries one reference (FOLL_GET) that the caller
 * drops with put_page(); until then the page is never freed, even if it is
 * unmapped meanwhile (MADV_DONTNEED, munmap, exit). FOLL_WRITE asks for
 * pages the process may write through their PTE (a write fault breaks the
 * copy-on-write of the zero page first). The shared zero page is returned
 * for read-only requests, with a reference too. Huge PMDs (only tests make
 * them: there is no THP yet) are not taken: the walk stops there (-EFAULT
 * on the first page), since a reference on a 2 MiB page needs the compound
 * refcount THP will bring. */
#ifndef MM_GUP_H
#define MM_GUP_H

#include "kernel/types.h"

struct page;

/* gup_flags, Linux's values (include/linux/mm_types.h, mm/internal.h). */
#define FOLL_WRITE (1u << 0)      /* the pages will be written */
#define FOLL_GET (1u << 1)        /* take a reference (always, here) */
#define FOLL_FORCE (1u << 3)      /* a debugger's access: past the VMA's protection
				   * (get_user_pages_remote and access_remote_vm only) */
#define FOLL_FAST_ONLY (1u << 20) /* no locked fallback (get_user_pages_fast_only) */

long get_user_pages_fast(unsigned long start, unsigned long nr_pages, unsigned int gup_flags,
			 struct page **pages);
long get_user_pages_fast_only(unsigned long start, unsigned long nr_pages, unsigned int gup_flags,
			      struct page **pages);
/* The locked walk of current->mm; the caller holds mmap_read_lock. */
long get_user_pages(unsigned long start, unsigned long nr_pages, unsigned int gup_flags,
		    struct page **pages);

/* Linux's get_user_pages_remote: the locked walk of mm (another
 * process's: the caller holds a reference on it, mmget, and its
 * mmap_read_lock), faulting pages in as the process's own faults would.
 * FOLL_WRITE and FOLL_FORCE are taken: without FOLL_FORCE a VMA without
 * the access is -EFAULT; with it, a read needs only VM_MAYREAD and a write
 * a private mapping that may be made writable, where the write fault
 * gives the process an anonymous copy of the page and leaves its PTE
 * read-only (mm/gup.c check_vma_flags, can_follow_write_pte). */
struct mm_struct;
long get_user_pages_remote(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
			   unsigned int gup_flags, struct page **pages);
/* Linux's access_remote_vm(mm, addr, buf, len, gup_flags): up to len
 * bytes of mm at addr into buf (kernel memory), or from buf into mm with
 * FOLL_WRITE, through get_user_pages_remote with gup_flags' FOLL_WRITE and
 * FOLL_FORCE, the pages faulted in where they were never touched (an
 * anonymous page reads as zeros); stops at the first address that has no
 * VMA or not the access. Takes mm's mmap_read_lock itself. Returns the
 * bytes copied. */
int access_remote_vm(struct mm_struct *mm, unsigned long addr, void *buf, int len, unsigned int gup_flags);

/* What the walks saw, summed since boot over every CPU (atomic counters;
 * a test takes a snapshot before and after and looks at the difference). */
struct gup_stats {
	unsigned long fast_calls;  /* lockless walks */
	unsigned long fast_pages;  /* pages the lockless walk took */
	unsigned long fast_stops;  /* lockless walks that stopped before the end */
	unsigned long raced;       /* references dropped because the PMD or PTE
				    * changed between its read and the reference
				    * (Linux's re-check), or the page was free */
	unsigned long poisoned;    /* entries read holding the page-poison pattern:
				    * a freed page-table page was read. Must stay 0 */
	unsigned long bad_entries; /* upper-level entries that were neither none
				    * nor a table: garbage read. Must stay 0 */
	unsigned long slow_calls;  /* locked walks (fallbacks and direct calls) */
	unsigned long slow_pages;  /* pages the locked walk took */
	unsigned long slow_faults; /* faults the locked walk made */
};
void gup_get_stats(struct gup_stats *s);

#endif
