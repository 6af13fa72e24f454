/* Swap-out of one anonymous page reclaim isolated (mm/vmscan_swap.c). */
#ifndef MM_VMSCAN_SWAP_H
#define MM_VMSCAN_SWAP_H

#include "mm/page.h"
#include "mm/swap_state.h"

enum swap_out_result {
	SWAP_OUT_FREED,    /* written and out of the swap cache: the isolator's put frees it */
	SWAP_OUT_KEEP,     /* someone else holds it (a fault found it in the cache): back inactive */
	SWAP_OUT_ACTIVATE, /* no slot, still mapped, a THP, or the write failed: back active */
	SWAP_OUT_QUEUED,   /* swap_out_folio_queue: in the batch, unmapped, its write to come */
};

/* The page (isolated, anonymous or an unmapped swap-cache page) to swap:
 * into the swap cache, unmapped everywhere, written, out of the cache.
 * caller: the mm whose mmap_lock the caller holds for reading
 * (MADV_PAGEOUT's), or NULL (reclaim): every other mm is taken with a
 * trylock.
 *
 * The writes of a list's pages go out together: a page that needs its
 * write joins batch b (SWAP_OUT_QUEUED: still isolated, unmapped, in the
 * swap cache, a reference on its slot held for the write); any other
 * outcome is final at once (a clean page needs no write). The caller
 * flushes a full batch before queueing more, and the rest at the end:
 * swap_out_batch_flush writes the pages (swap_writepages: a bio per run
 * of adjacent slots, not one per page) and gives each page's outcome in
 * results[]. Linux's shrink_folio_list starts the writes of a list under
 * a plug and leaves the pages under writeback for a later pass; mmlab's
 * writes are synchronous, so the batch is waited for and its pages freed
 * in the same pass. */
struct swap_out_batch {
	unsigned int nr;
	struct page *pages[SWAP_WRITE_BATCH_MAX];
	enum swap_out_result results[SWAP_WRITE_BATCH_MAX];
};
static inline bool swap_out_batch_full(const struct swap_out_batch *b) { return b->nr == SWAP_WRITE_BATCH_MAX; }
struct mm_struct;
enum swap_out_result swap_out_folio_queue(struct page *page, struct mm_struct *caller, struct swap_out_batch *b);
void swap_out_batch_flush(struct swap_out_batch *b);

#endif
