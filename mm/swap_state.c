/* The swap cache and swap I/O (mm/swap_state.h says what a page in it
 * holds and which invariant it keeps).
 *
 * An area's array holds, per slot, the page of the cache, or, once
 * reclaim freed that page, its shadow (Linux's xarray value entry,
 * mm/workingset.c): a word with bit 0 set, which no struct page pointer
 * has. A lookup sees a shadow as no page. The shadow stays until a page
 * takes the slot again (add_to_swap_cache hands it to the swap-in's
 * workingset_refault) or the slot is freed (clear_shadow_from_swap_cache,
 * Linux's, from swap_range_free).
 *
 * Locking: swap_cache_lock covers every area's array and PG_swapcache
 * and private of the pages in it; a lookup takes its reference under it,
 * and a removal checks the page's references under it, so a page is
 * never found once reclaim has decided to free it. It nests inside PTE
 * locks and outside swap_lock. The one write without it is a free slot's
 * shadow cleared under swap_lock: no page can be in a free slot, and the
 * slot cannot be handed out again before swap_lock is dropped. */
#include "mm/swap_state.h"
#include "block/blkdev.h"
#include "kernel/printk.h"
#include "kernel/psi.h"
#include "kernel/spinlock.h"
#include "kernel/wait.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/vmalloc.h"
#include "mm/vmstat.h"
#include "mm/workingset.h"

DEFINE_SPINLOCK(swap_cache_lock);
static struct page **swap_cache[MAX_SWAPFILES];
static unsigned long swap_cache_pages;

int init_swap_address_space(unsigned int type, unsigned long nr_pages)
{
	struct page **slots = vzalloc(nr_pages * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	spin_lock(&swap_cache_lock);
	swap_cache[type] = slots;
	spin_unlock(&swap_cache_lock);
	return 0;
}

void exit_swap_address_space(unsigned int type)
{
	spin_lock(&swap_cache_lock);
	struct page **slots = swap_cache[type];
	swap_cache[type] = NULL;
	spin_unlock(&swap_cache_lock);
	vfree(slots);
}

unsigned long total_swapcache_pages(void)
{
	return READ_ONCE(swap_cache_pages);
}

static struct page **cache_slot_locked(swp_entry_t entry)
{
	struct page **slots = swap_cache[swp_type(entry)];
	return slots ? &slots[swp_offset(entry)] : NULL;
}

/* Linux's xa_is_value: a shadow, not a page. */
static inline bool slot_is_shadow(const struct page *p) { return (unsigned long)p & 1; }

/* The page in a slot, NULL for none or a shadow. */
static struct page *slot_page_locked(swp_entry_t entry)
{
	struct page **slot = cache_slot_locked(entry);
	struct page *p = slot ? *slot : NULL;
	return p && !slot_is_shadow(p) ? p : NULL;
}

void clear_shadow_from_swap_cache(unsigned int type, unsigned long offset)
{
	struct page **slots = READ_ONCE(swap_cache[type]);
	if (!slots)
		return;
	struct page *old = READ_ONCE(slots[offset]);
	if (old && slot_is_shadow(old))
		__atomic_compare_exchange_n(&slots[offset], &old, NULL, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void *swap_cache_shadow(swp_entry_t entry)
{
	spin_lock(&swap_cache_lock);
	struct page **slot = cache_slot_locked(entry);
	void *shadow = slot && *slot && slot_is_shadow(*slot) ? *slot : NULL;
	spin_unlock(&swap_cache_lock);
	return shadow;
}

static void set_swapcache(struct page *page)
{
	__atomic_or_fetch(&page->flags, 1ul << PG_swapcache, __ATOMIC_RELAXED);
}

static void clear_swapcache(struct page *page)
{
	__atomic_and_fetch(&page->flags, ~(1ul << PG_swapcache), __ATOMIC_RELAXED);
}

void add_to_swap_cache(struct page *page, swp_entry_t entry, void **shadowp)
{
	get_page(page);
	spin_lock(&swap_cache_lock);
	struct page **slot = cache_slot_locked(entry);
	if (shadowp)
		*shadowp = slot_is_shadow(*slot) ? *slot : NULL;
	page->_user_private = entry.val;
	set_swapcache(page);
	*slot = page;
	swap_cache_pages++;
	spin_unlock(&swap_cache_lock);
}

/* Out of the cache, under the lock, leaving shadow (or nothing) in its
 * slot (Linux's __delete_from_swap_cache); the caller drops the slot's
 * cache flag and the cache's reference after it. */
static swp_entry_t __delete_from_swap_cache_locked(struct page *page, void *shadow)
{
	swp_entry_t entry = page_swap_entry(page);
	struct page **slot = cache_slot_locked(entry);
	if (slot && *slot == page)
		*slot = shadow;
	clear_swapcache(page);
	__atomic_and_fetch(&page->flags, ~((1ul << PG_dirty) | (1ul << PG_readahead)), __ATOMIC_RELAXED);
	page->_user_private = 0;
	swap_cache_pages--;
	return entry;
}

void delete_from_swap_cache(struct page *page)
{
	spin_lock(&swap_cache_lock);
	swp_entry_t entry = __delete_from_swap_cache_locked(page, NULL);
	spin_unlock(&swap_cache_lock);
	put_swap_folio(entry);
	put_page(page);
}

/* page out of the cache if, under the cache's lock, it still is in it
 * and: reclaim's (isolated) nothing but the isolation and the cache hold
 * it (Linux's folio_ref_freeze(folio, 1 + nr_pages)); otherwise no swap
 * entry names its slot any more. The slot's cache flag and the cache's
 * reference go after the lock. */
static bool delete_from_swap_cache_if(struct page *page, bool isolated)
{
	spin_lock(&swap_cache_lock);
	bool go = PageSwapCache(page) &&
		  (isolated ? page_ref_count(page) == 2 && !page_mapcount(page)
			    : swap_count_of(page_swap_entry(page)) == SWAP_HAS_CACHE);
	swp_entry_t entry = { 0 };
	/* Reclaim leaves a shadow (Linux's __remove_mapping with
	 * reclaimed: workingset_eviction); a page nobody needs leaves none. */
	if (go)
		entry = __delete_from_swap_cache_locked(page, isolated ? workingset_eviction(page) : NULL);
	spin_unlock(&swap_cache_lock);
	if (!go)
		return false;
	put_swap_folio(entry);
	put_page(page); /* the cache's (an isolator's is its own) */
	return true;
}

bool remove_mapping_swapcache(struct page *page)
{
	return delete_from_swap_cache_if(page, true);
}

struct page *lookup_swap_cache(swp_entry_t entry)
{
	spin_lock(&swap_cache_lock);
	struct page *page = slot_page_locked(entry);
	if (page)
		get_page(page);
	spin_unlock(&swap_cache_lock);
	return page;
}

bool swap_cache_present(swp_entry_t entry)
{
	spin_lock(&swap_cache_lock);
	bool present = slot_page_locked(entry) != NULL;
	spin_unlock(&swap_cache_lock);
	return present;
}

bool try_to_free_swap(struct page *page)
{
	return delete_from_swap_cache_if(page, false);
}

int swap_cache_map(struct page *page, swp_entry_t entry, struct vm_area_struct *vma, unsigned long address,
		   bool keep, bool *first)
{
	spin_lock(&swap_cache_lock);
	if (!PageSwapCache(page) || page_swap_entry(page).val != entry.val) {
		spin_unlock(&swap_cache_lock);
		return -EAGAIN;
	}
	swap_free(entry); /* the PTE's reference */
	bool exclusive = swap_count_of(entry) == SWAP_HAS_CACHE && !page_mapcount(page);
	*first = page_add_anon_rmap(page, vma, address, exclusive);
	bool leave = exclusive && !keep;
	if (leave)
		__delete_from_swap_cache_locked(page, NULL);
	spin_unlock(&swap_cache_lock);
	if (leave) {
		put_swap_folio(entry);
		put_page(page);
	}
	return exclusive;
}

void free_swap_and_cache(swp_entry_t entry)
{
	swap_free(entry);
	if (swap_count_of(entry) != SWAP_HAS_CACHE)
		return;
	struct page *page = lookup_swap_cache(entry);
	if (page) {
		try_to_free_swap(page);
		put_page(page);
	}
}

/* A bio of n pages for the n slots that follow first on si (op: read or
 * write), NULL without memory. GFP_NOIO: the bio of a swap-out must not
 * start another. */
static struct bio *swap_bio(struct swap_info_struct *si, swp_entry_t first, struct page **pages, unsigned int n,
			    unsigned int op)
{
	struct bio *bio = bio_alloc(si->bdev, (unsigned short)n, op, GFP_NOIO);
	if (!bio)
		return NULL;
	bio->bi_iter.bi_sector = (sector_t)swp_offset(first) << (PAGE_SHIFT - SECTOR_SHIFT);
	for (unsigned int k = 0; k < n; k++)
		bio_add_page(bio, pages[k], PAGE_SIZE, 0);
	return bio;
}

int swap_writepage(struct page *page)
{
	int err;
	swap_writepages(&page, 1, &err);
	return err;
}

/* The writes of a batch in flight: the last bio's end wakes the writer.
 * pending starts at one, the writer's own, dropped once every bio is
 * submitted, so no end can see zero early. */
struct swap_write_wait {
	int pending;
	struct completion done;
};

static void swap_write_endio(struct bio *bio)
{
	struct swap_write_wait *w = bio->bi_private;
	if (!__atomic_sub_fetch(&w->pending, 1, __ATOMIC_ACQ_REL))
		complete(&w->done);
}

/* A run of pages from i whose slots follow each other on one area, at
 * most max pages: its length. */
static unsigned int swap_run(struct page **pages, unsigned int i, unsigned int nr, unsigned int max)
{
	swp_entry_t first = page_swap_entry(pages[i]);
	unsigned int n = 1;
	while (i + n < nr && n < max) {
		swp_entry_t e = page_swap_entry(pages[i + n]);
		if (swp_type(e) != swp_type(first) || swp_offset(e) != swp_offset(first) + n)
			break;
		n++;
	}
	return n;
}

void swap_writepages(struct page **pages, unsigned int nr, int *err)
{
	struct bio *bios[SWAP_WRITE_BATCH_MAX];
	unsigned int first[SWAP_WRITE_BATCH_MAX], nbios = 0;
	struct swap_write_wait w = { .pending = 1 };
	init_completion(&w.done);
	for (unsigned int i = 0; i < nr;) {
		struct swap_info_struct *si = swp_swap_info(page_swap_entry(pages[i]));
		if (!si) {
			err[i++] = -EINVAL;
			continue;
		}
		unsigned int max = si->bdev->bd_disk->queue.limits.max_segments;
		unsigned int n = swap_run(pages, i, nr, max ? max : 1);
		struct bio *bio = swap_bio(si, page_swap_entry(pages[i]), pages + i, n, REQ_OP_WRITE);
		if (!bio) {
			for (unsigned int k = 0; k < n; k++)
				err[i + k] = -ENOMEM;
			i += n;
			continue;
		}
		bio->bi_private = &w;
		bio->bi_end_io = swap_write_endio;
		__atomic_add_fetch(&w.pending, 1, __ATOMIC_RELAXED);
		first[nbios] = i;
		bios[nbios++] = bio;
		submit_bio(bio);
		i += n;
	}
	if (__atomic_sub_fetch(&w.pending, 1, __ATOMIC_ACQ_REL))
		wait_for_completion_io(&w.done); /* an I/O wait, as submit_bio_wait's */
	for (unsigned int b = 0; b < nbios; b++) {
		struct bio *bio = bios[b];
		int e = blk_status_to_errno(bio->bi_status);
		unsigned int n = bio->bi_vcnt, i = first[b];
		if (e)
			pr_err("Write to swap offset %lu (%u page%s) failed: %d\n",
			       swp_offset(page_swap_entry(pages[i])), n, n == 1 ? "" : "s", e);
		for (unsigned int k = 0; k < n; k++) {
			err[i + k] = e;
			/* The slot holds the data now (Linux's
			 * folio_clear_dirty_for_io before the write): the page
			 * may go without another. */
			if (!e)
				__atomic_and_fetch(&pages[i + k]->flags, ~(1ul << PG_dirty), __ATOMIC_RELAXED);
		}
		if (!e)
			count_vm_events(PSWPOUT, n);
		bio_put(bio);
	}
}

int swap_readpage(struct page *page, swp_entry_t entry)
{
	return swap_read_pages(&page, 1, entry);
}

int swap_read_pages(struct page **pages, unsigned int nr, swp_entry_t first)
{
	struct swap_info_struct *si = swp_swap_info(first);
	if (!si)
		return -EINVAL;
	struct bio *bio = swap_bio(si, first, pages, nr, REQ_OP_READ);
	if (!bio)
		return -ENOMEM;
	int err = submit_bio_wait(bio);
	bio_put(bio);
	if (err)
		pr_err("Read to swap offset %lu failed: %d\n", swp_offset(first), err);
	else
		count_vm_events(PSWPIN, nr);
	return err;
}
