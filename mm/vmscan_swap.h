/* Swap-out of one anonymous page reclaim isolated (mm/vmscan_swap.c). */
#ifndef MM_VMSCAN_SWAP_H
#define MM_VMSCAN_SWAP_H

#include "mm/page.h"

enum swap_out_result {
	SWAP_OUT_FREED,    /* written and out of the swap cache: the isolator's put frees it */
	SWAP_OUT_KEEP,     /* someone else holds it (a fault found it in the cache): back inactive */
	SWAP_OUT_ACTIVATE, /* no slot, still mapped, a THP, or the write failed: back active */
};

/* The page (isolated, anonymous or an unmapped swap-cache page) to swap:
 * into the swap cache, unmapped everywhere, written, out of the cache.
 * caller: the mm whose mmap_lock the caller holds for reading
 * (MADV_PAGEOUT's), or NULL (reclaim): every other mm is taken with a
 * trylock. */
struct mm_struct;
enum swap_out_result swap_out_folio(struct page *page, struct mm_struct *caller);

#endif
