/* Swap-in readahead (Linux 6.1's swapin_readahead and its two policies,
 * mm/swap_state.c): a swap fault that misses the swap cache reads its own
 * page and, around it, slots it will likely want next; those pages go
 * into the swap cache unmapped, on the inactive list, PG_readahead, and a
 * later fault finds them there (a minor fault, swap_ra_hit).
 *
 *   - cluster readahead (swap_cluster_readahead): the aligned block of
 *     swapin_nr_pages() slots around the faulting slot, on the disk;
 *   - VMA readahead (swap_vma_readahead): the swap entries of the PTEs
 *     around the faulting address, within the VMA and its PTE table, in
 *     a window of up to 2^min(page-cluster, 5) pages that follows the
 *     direction of the faults.
 * Linux uses VMA readahead when /sys/kernel/mm/swap/vma_ra_enabled is
 * true (the default) and no swap area on a rotational disk is on
 * (nr_rotate_swap): a virtio disk is rotational to Linux 6.1, so its
 * swap machine reads clusters, as mmlab's does.
 *
 * The window (__swapin_nr_pages) grows with the hits of the last window
 * and shrinks at most by half a fault; 2^page-cluster pages at most
 * (/proc/sys/vm/page-cluster, 3 by default; 0: one page per fault). */
#ifndef MM_SWAP_READAHEAD_H
#define MM_SWAP_READAHEAD_H

#include "mm/memory.h"
#include "mm/swapfile.h"

struct vm_fault;
struct vm_area_struct;
struct swap_info_struct;

extern int page_cluster;
extern bool enable_vma_readahead;

/* Linux's __swapin_nr_pages: the next window, in pages, from the offset
 * (or page address) of the previous fault and of this one, the readahead
 * hits since, the largest window and the previous one. */
unsigned int __swapin_nr_pages(unsigned long prev_offset, unsigned long offset, int hits, int max_pages,
			       int prev_win);
/* Linux's swap_use_vma_readahead. */
bool swap_use_vma_readahead(void);
/* swapon and swapoff of an area on bdev: nr_rotate_swap counts the
 * rotational ones. */
void swap_readahead_area_on(struct swap_info_struct *si);
void swap_readahead_area_off(struct swap_info_struct *si);

/* Linux's lookup_swap_cache for a fault (vma, addr): the page at entry,
 * with a reference, or NULL; a page read ahead and used now for the first
 * time counts a hit (swap_ra_hit, and the window's hits). */
struct page *swap_cache_get_page(swp_entry_t entry, struct vm_area_struct *vma, unsigned long addr);
/* Linux's swapin_readahead: the page at entry read (with those around it
 * the policy chooses), in the swap cache and on the LRU, with a reference
 * for the caller; *ret VM_FAULT_MAJOR. NULL with *ret: VM_FAULT_OOM,
 * VM_FAULT_SIGBUS (the read failed), or 0 (the slot was busy or freed
 * meanwhile: the fault tries again). */
struct page *swapin_readahead(swp_entry_t entry, struct vm_fault *vmf, vm_fault_t *ret);

/* The state of the cluster policy's window (for tests): the window just
 * used and the hits counted since it was read. */
void swapin_readahead_state(unsigned int *last_pages, unsigned int *hits);

#endif
