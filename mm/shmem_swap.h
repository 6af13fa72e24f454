/* tmpfs pages to swap and back (mm/shmem_swap.c says how): reclaim's
 * side, the page cache's lookups that bring a page back, truncate's and
 * swapoff's sides, and smaps' count. */
#ifndef MM_SHMEM_SWAP_H
#define MM_SHMEM_SWAP_H

#include "mm/swapfile.h"
#include "mm/vmscan_swap.h"

struct address_space;
struct inode;
struct page;
struct list_head;

/* Linux's shmem_writepage from shrink_folio_list: page (isolated, a
 * tmpfs page: page_in_page_cache and swap-backed) unmapped everywhere,
 * its page-cache entry replaced by a swap entry, written, out of the swap
 * cache. ACTIVATE: a huge page, still mapped, no slot, the write failed;
 * KEEP: someone holds it (a lookup, a mapping made meanwhile). */
enum swap_out_result shmem_swap_out(struct page *page);
/* Linux's split_folio_to_list of a tmpfs huge page in shrink_folio_list:
 * head (isolated) unmapped from every process and split into 512 pages
 * of the page cache, the tails to the tail of list, isolated. 0
 * (thp_split_page), -EBUSY (still mapped, or a reference beyond the
 * page cache's and the isolation's: thp_split_page_failed), -EINVAL (not
 * a tmpfs huge page). */
int shmem_split_for_swap(struct page *head, struct list_head *list);
/* The page at index of inode with a reference of the caller's, brought
 * back from swap if it was out there (Linux's shmem_get_folio with
 * SGP_READ and shmem_swapin_folio); NULL for a hole, or with *err
 * (-ENOMEM, -EIO) when it could not be read. May sleep. */
struct page *shmem_find_folio(struct inode *inode, unsigned long index, int *err);
/* The same as read(2)'s lookup (filemap_read_by). */
struct page *shmem_read_folio(struct address_space *mapping, unsigned long index);
/* Truncate met value at index (a page out on swap): the entry and its
 * slot go, size= and i_blocks give the page back (Linux's
 * shmem_free_swap). */
void shmem_free_swap(struct address_space *mapping, unsigned long index, void *value);
/* swapoff: every tmpfs page out on area type brought back (Linux's
 * shmem_unuse). 0, -ENOMEM, -EIO, -EINTR. */
int shmem_unuse(unsigned int type);
/* inode goes (evicted, after its truncate): off the list of files with
 * pages out. */
void shmem_swaplist_del(struct inode *inode);
/* Bytes of the file's pages in [first, last] out on swap (Linux's
 * shmem_swap_usage, shmem_partial_swap_usage: smaps' Swap of a shmem
 * mapping). */
unsigned long shmem_swap_usage(struct address_space *mapping, unsigned long first, unsigned long last);

/* Test hook (NULL outside tests): called, when set, at the steps of a
 * tmpfs page's way to swap and back where another CPU may act on it
 * (a truncate, swapoff, reclaim), so that a test can act there
 * deterministically:
 *   OUT_PUBLISH: shmem_swap_out, the page in the swap cache at entry,
 *     its page-cache entry not replaced yet;
 *   OUT_WRITE: shmem_swap_out, the swap entry published in the page's
 *     place, before swap_writepage;
 *   SWAPIN_CACHED: shmem_swapin, the page (found or read) in the swap
 *     cache, before it enters the page cache;
 *   SWAPIN_HANDED_OVER: shmem_swapin, the page in the page cache,
 *     before it leaves the swap cache. */
enum shmem_swap_step {
	SHMEM_SWAP_OUT_PUBLISH,
	SHMEM_SWAP_OUT_WRITE,
	SHMEM_SWAPIN_CACHED,
	SHMEM_SWAPIN_HANDED_OVER,
};
extern void (*shmem_swap_hook)(enum shmem_swap_step step, struct page *page, swp_entry_t entry);

#endif
