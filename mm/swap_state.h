/* The swap cache and swap I/O (Linux 6.1's mm/swap_state.c and
 * mm/page_io.c): a page whose data is also, or is about to be, in a swap
 * slot, found by its swap entry. A page in it has PG_swapcache, its entry
 * in private (Linux's folio->swap), a reference held by the cache, and
 * the slot's SWAP_HAS_CACHE (mm/swapfile.h).
 *
 * Linux keeps one address_space per 64 MiB of each area, an xarray of the
 * pages; mmlab keeps one array of page pointers per area, indexed by
 * offset (swapon makes it, swapoff frees it), under swap_cache_lock.
 *
 * Invariant: a page in the swap cache is mapped writable only by the one
 * mapping that owns it alone and has not been unmapped since it entered
 * the cache (reclaim's add_to_swap, whose unmap then failed; it is
 * PG_dirty). Swap-in maps a page that stays in the cache read-only, so a
 * page that other swap entries name never changes under them; a write
 * fault takes it out of the cache first when no entry names its slot
 * (try_to_free_swap: then mm/memory.c's reuse finds one reference), and
 * copies it otherwise. */
#ifndef MM_SWAP_STATE_H
#define MM_SWAP_STATE_H

#include "mm/page.h"
#include "kernel/spinlock.h"
#include "mm/swapfile.h"

static inline bool PageSwapCache(const struct page *page) { return page_test_flag(page, PG_swapcache); }
static inline swp_entry_t page_swap_entry(const struct page *page)
{
	return (swp_entry_t){ page->_user_private };
}

/* swapon and swapoff: the area's cache made (0 or -ENOMEM), and freed
 * (empty by then: try_to_unuse took every page out). */
int init_swap_address_space(unsigned int type, unsigned long nr_pages);
void exit_swap_address_space(unsigned int type);

/* page (a reference of the caller's, not in the cache) enters it at
 * entry, whose SWAP_HAS_CACHE the caller took (get_swap_page or
 * swapcache_prepare): the cache takes a reference. *shadowp (if not
 * NULL): the shadow reclaim left in the slot, or NULL (mm/workingset.h). */
void add_to_swap_cache(struct page *page, swp_entry_t entry, void **shadowp);
/* A free slot's shadow goes (Linux's clear_shadow_from_swap_cache), under
 * swap_lock, from the slot's free. */
void clear_shadow_from_swap_cache(unsigned int type, unsigned long offset);
/* The shadow in entry's slot, or NULL (for tests). */
void *swap_cache_shadow(swp_entry_t entry);
/* page leaves the cache: its slot's SWAP_HAS_CACHE and the cache's
 * reference go (the slot is free if nothing else names it). */
void delete_from_swap_cache(struct page *page);
/* Linux's __remove_mapping for a swap-cache page reclaim holds isolated
 * (its reference and the cache's, nothing else: no mapping, no other
 * user): out of the cache, true; false when someone else holds it. */
bool remove_mapping_swapcache(struct page *page);
/* The page at entry, with a reference for the caller, or NULL. */
struct page *lookup_swap_cache(swp_entry_t entry);
/* Whether a page is in the cache at entry (mincore's question). */
bool swap_cache_present(swp_entry_t entry);
/* Linux's folio_free_swap: page leaves the cache when nothing needs its
 * slot any more (no swap entry names it); a page still mapped stays
 * mapped, an ordinary anonymous page from then on. True when it did. */
bool try_to_free_swap(struct page *page);
/* The swap-in's step under the swap cache's lock (Linux's do_swap_page
 * between swap_free and page_add_anon_rmap): the PTE's reference on entry
 * goes, and page (in the cache at entry, a reference of the caller's)
 * gains vma's mapping at address (*first: its first). Exclusive when no
 * other swap entry names the slot and nothing else maps the page: it
 * then leaves the cache (its slot freed), and the caller may map it
 * writable; unless keep (a read fault while swap has room: Linux's
 * should_try_to_free_swap false), when it stays, clean, mapped read-only,
 * so that reclaim may free it again without a write, and a write fault
 * takes it out (do_wp_page: try_to_free_swap). 1 exclusive, 0 shared (it
 * stays in the cache, mapped read-only), -EAGAIN when page is not the
 * cache's page at entry any more (the fault tries again). */
struct vm_area_struct;
int swap_cache_map(struct page *page, swp_entry_t entry, struct vm_area_struct *vma, unsigned long address,
		   bool keep, bool *first);
/* Held around an unmap of a page in the swap cache (reclaim's, a zap's),
 * so that its last mapping's going and a swap-in's first mapping
 * (swap_cache_map) do not interleave: the one clears the page's anon_vma,
 * the other sets it. */
extern spinlock_t swap_cache_lock;
/* Linux's free_swap_and_cache: a swap entry goes (zap); the slot is
 * freed, and a cache page nobody maps and no other entry names with it. */
void free_swap_and_cache(swp_entry_t entry);
/* Pages in the swap cache (Linux's total_swapcache_pages: SwapCached,
 * nr_swapcached). */
unsigned long total_swapcache_pages(void);

/* Linux's swap_writepage and swap_read_folio, synchronous: one bio of
 * one page at the slot's sector, waited for (Linux's is asynchronous, its
 * end_io finishing the page's writeback): swap_writepages and
 * swap_read_pages of one page. 0 or -errno. pswpout/pswpin.
 * A written page is clean (PG_dirty cleared): reclaim may free it again
 * without a write while it stays in the cache. */
int swap_writepage(struct page *page);
int swap_readpage(struct page *page, swp_entry_t entry);
/* The writes of reclaim's batch (mm/vmscan_swap.h): nr pages (at most
 * SWAP_WRITE_BATCH_MAX), each in the cache at its slot, written with one
 * bio per run of slots that follow each other on an area (up to the
 * disk's max_segments pages), all submitted, then waited for: what
 * Linux's reclaim gets from its plug (blk_start_plug in shrink_lruvec),
 * under which its block layer merges the bios of adjacent slots into one
 * request. err[i]: 0 (page i clean, counted in pswpout) or -errno. */
#define SWAP_WRITE_BATCH_MAX 32
void swap_writepages(struct page **pages, unsigned int nr, int *err);
/* nr pages (at most the disk's max_segments) read from the nr slots
 * that follow first, in one bio, waited for (the readahead's batch: Linux
 * plugs the reads of a window, blk_start_plug, and its block layer merges
 * them): 0 or -errno; pswpin counts nr. */
int swap_read_pages(struct page **pages, unsigned int nr, swp_entry_t first);

#endif
