/* The swap cache and swap I/O (mm/swap_state.h says what a page in it
 * holds and which invariant it keeps).
 *
 * Locking: swap_cache_lock covers every area's array and PG_swapcache
 * and private of the pages in it; a lookup takes its reference under it,
 * and a removal checks the page's references under it, so a page is
 * never found once reclaim has decided to free it. It nests inside PTE
 * locks and outside swap_lock. */
#include "mm/swap_state.h"
#include "block/blkdev.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/vmalloc.h"
#include "mm/vmstat.h"

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

static void set_swapcache(struct page *page)
{
	__atomic_or_fetch(&page->flags, 1ul << PG_swapcache, __ATOMIC_RELAXED);
}

static void clear_swapcache(struct page *page)
{
	__atomic_and_fetch(&page->flags, ~(1ul << PG_swapcache), __ATOMIC_RELAXED);
}

void add_to_swap_cache(struct page *page, swp_entry_t entry)
{
	get_page(page);
	spin_lock(&swap_cache_lock);
	struct page **slot = cache_slot_locked(entry);
	page->_user_private = entry.val;
	set_swapcache(page);
	*slot = page;
	swap_cache_pages++;
	spin_unlock(&swap_cache_lock);
}

/* Out of the cache, under the lock; the caller drops the slot's cache
 * flag and the cache's reference after it. */
static swp_entry_t __delete_from_swap_cache_locked(struct page *page)
{
	swp_entry_t entry = page_swap_entry(page);
	struct page **slot = cache_slot_locked(entry);
	if (slot && *slot == page)
		*slot = NULL;
	clear_swapcache(page);
	page->_user_private = 0;
	swap_cache_pages--;
	return entry;
}

void delete_from_swap_cache(struct page *page)
{
	spin_lock(&swap_cache_lock);
	swp_entry_t entry = __delete_from_swap_cache_locked(page);
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
	if (go)
		entry = __delete_from_swap_cache_locked(page);
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
	struct page **slot = cache_slot_locked(entry);
	struct page *page = slot ? *slot : NULL;
	if (page)
		get_page(page);
	spin_unlock(&swap_cache_lock);
	return page;
}

bool swap_cache_present(swp_entry_t entry)
{
	spin_lock(&swap_cache_lock);
	struct page **slot = cache_slot_locked(entry);
	bool present = slot && *slot;
	spin_unlock(&swap_cache_lock);
	return present;
}

bool try_to_free_swap(struct page *page)
{
	return delete_from_swap_cache_if(page, false);
}

int swap_cache_map(struct page *page, swp_entry_t entry, struct vm_area_struct *vma, unsigned long address,
		   bool *first)
{
	spin_lock(&swap_cache_lock);
	if (!PageSwapCache(page) || page_swap_entry(page).val != entry.val) {
		spin_unlock(&swap_cache_lock);
		return -EAGAIN;
	}
	swap_free(entry); /* the PTE's reference */
	bool exclusive = swap_count_of(entry) == SWAP_HAS_CACHE && !page_mapcount(page);
	*first = page_add_anon_rmap(page, vma, address, exclusive);
	if (exclusive)
		__delete_from_swap_cache_locked(page);
	spin_unlock(&swap_cache_lock);
	if (exclusive) {
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

static int swap_rw(struct page *page, swp_entry_t entry, unsigned int op)
{
	struct swap_info_struct *si = swp_swap_info(entry);
	if (!si)
		return -EINVAL;
	/* GFP_NOIO: the bio of a swap-out must not start another. */
	struct bio *bio = bio_alloc(si->bdev, 1, op, GFP_NOIO);
	if (!bio)
		return -ENOMEM;
	bio->bi_iter.bi_sector = (sector_t)swp_offset(entry) << (PAGE_SHIFT - SECTOR_SHIFT);
	bio_add_page(bio, page, PAGE_SIZE, 0);
	int err = submit_bio_wait(bio);
	bio_put(bio);
	if (err)
		pr_err("%s to swap offset %lu failed: %d\n", op == REQ_OP_WRITE ? "Write" : "Read",
		       swp_offset(entry), err);
	return err;
}

int swap_writepage(struct page *page)
{
	int err = swap_rw(page, page_swap_entry(page), REQ_OP_WRITE);
	if (!err)
		count_vm_event(PSWPOUT);
	return err;
}

int swap_readpage(struct page *page, swp_entry_t entry)
{
	int err = swap_rw(page, entry, REQ_OP_READ);
	if (!err)
		count_vm_event(PSWPIN);
	return err;
}
