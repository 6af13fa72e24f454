/* tmpfs pages to swap and back (Linux 6.1's shmem_writepage,
 * shmem_swapin_folio, shmem_free_swap, shmem_unuse, shmem_swap_usage in
 * mm/shmem.c). Every tmpfs page is one: a file's, shared anonymous
 * memory's and a System V segment's (their objects' files are tmpfs files
 * on the internal instance, mm/shmem.h).
 *
 * A tmpfs page is swap-backed (PG_swapbacked): it sits on the anon LRU
 * lists, as Linux's (folio_is_file_lru is false for it), and reclaim
 * scans it only with swap on. When reclaim (or MADV_PAGEOUT) chooses it,
 * shmem_swap_out:
 *   1. unmaps it from every process (Linux's try_to_unmap of a file
 *      folio: the PTEs go, a later touch faults the page in again);
 *   2. takes a slot, puts the page in the swap cache, and, under the page
 *      cache's lock, if nothing but the page cache, the isolation and the
 *      swap cache holds it, replaces its page-cache entry with the swap
 *      entry as an xarray value (Linux's shmem_delete_from_page_cache
 *      with swp_to_radix_entry): the file's reference on the slot, the
 *      file's i_swapped + 1, Shmem and Cached - 1 (i_blocks and size=
 *      still count it: the file still holds that page, on swap);
 *   3. writes it (swap_writepage) and lets the swap cache drop it, as an
 *      anonymous page's swap-out does.
 * A lookup that meets the value (a fault, read(2), write(2), fallocate,
 * a partial truncate's zeroing) brings the page back first
 * (shmem_swapin: from the swap cache, or read from the slot), puts it in
 * the page cache in the value's place, and the slot goes. A truncate or
 * a hole punched frees the slot (shmem_free_swap). swapoff brings every
 * page of every file with swapped pages back (shmem_unuse, over the list
 * of such files, Linux's shmem_swaplist).
 *
 * A tmpfs huge page is split first (shmem_split_for_swap, Linux's
 * split_folio_to_list in shrink_folio_list): unmapped everywhere, then
 * 512 pages of their own in the page cache, the tails reclaimed in the
 * same pass. Not swapped: a secretmem or hugetlbfs page (not tmpfs's).
 *
 * Locking: the page cache's xa_lock guards the entry, nrpages and
 * i_swapped; shmem_swaplist_lock the list, and is held (xa_lock inside)
 * where i_swapped grows and the file joins the list; an inode on the
 * list is kept by a reference while shmem_unuse works on it. Linux holds
 * the folio lock across shmem_writepage and shmem_swapin_folio; mmlab
 * stands in for it with the LRU isolation (reclaim's across the
 * swap-out, the swap-in's from its lookup until the page has left the
 * swap cache), the write's own reference on the slot, and
 * page_mapping_get where reclaim reaches the inode from the page. */
#include "mm/shmem_swap.h"
#include "fs/fs.h"
#include "kernel/mutex.h"
#include "kernel/sched.h"
#include "mm/filemap.h"
#include "mm/page_alloc.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/shmem_fs.h"
#include "mm/swap.h"
#include "mm/swap_state.h"
#include "mm/workingset.h"
#include "mm/swapops.h"
#include "mm/truncate.h"
#include "mm/vmscan.h"
#include "mm/vmstat.h"
#include "mm/util.h"
#include "mm/slab.h"
#include "kernel/signal.h"

static DEFINE_SPINLOCK(shmem_swaplist_lock);
static LIST_HEAD(shmem_swaplist);

void (*shmem_swap_hook)(enum shmem_swap_step step, struct page *page, swp_entry_t entry);

static void shmem_swap_step(enum shmem_swap_step step, struct page *page, swp_entry_t entry)
{
	void (*hook)(enum shmem_swap_step, struct page *, swp_entry_t) = READ_ONCE(shmem_swap_hook);
	if (hook)
		hook(step, page, entry);
}

void shmem_swaplist_del(struct inode *inode)
{
	spin_lock(&shmem_swaplist_lock);
	if (inode->i_swaplist.next) {
		list_del(&inode->i_swaplist);
		inode->i_swaplist.next = inode->i_swaplist.prev = NULL;
	}
	spin_unlock(&shmem_swaplist_lock);
}

/* A reference on inode unless its last one is gone (it is being
 * evicted). */
static bool inode_get_unless_zero(struct inode *inode)
{
	long n = __atomic_load_n(&inode->i_count, __ATOMIC_RELAXED);
	while (n > 0)
		if (__atomic_compare_exchange_n(&inode->i_count, &n, n + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	return false;
}

/* The tmpfs file of page (isolated by reclaim: its reference only), with
 * a reference on its inode for the caller to iput: 0, -EINVAL (not in a
 * tmpfs page cache), -EBUSY (the inode is being evicted: its truncate
 * frees the page). Linux reads folio->mapping under the folio lock,
 * which keeps a truncate, and so the inode's end, waiting; here
 * page_mapping_get keeps the address_space (and the inode around it)
 * from being freed while the mapping is read and the reference taken,
 * and lets go before the caller's iput, which may be the last and then
 * waits for such holders (mapping_free_barrier). */
static int shmem_page_inode_get(struct page *page, struct address_space **mappingp, struct inode **inodep)
{
	struct address_space *mapping = page_mapping_get(page);
	if (!mapping)
		return -EINVAL;
	int err = -EINVAL;
	if (shmem_mapping(mapping)) {
		err = -EBUSY;
		if (inode_get_unless_zero(mapping->host)) {
			*inodep = mapping->host;
			*mappingp = mapping; /* the inode's: alive while it is */
			err = 0;
		}
	}
	page_mapping_put();
	return err;
}

enum swap_out_result shmem_swap_out(struct page *page)
{
	/* A swap-in's page between its page-cache entry and its leaving the
	 * swap cache is isolated by that swap-in (shmem_swapin), so reclaim
	 * should never hold one; if it does, the swap cache entry is not
	 * ours to replace. */
	if (PageSwapCache(page))
		return SWAP_OUT_KEEP;
	if (page_test_flag(compound_head(page), PG_shmem_thp))
		return SWAP_OUT_ACTIVATE; /* a huge page: Linux splits it first */
	struct address_space *mapping;
	struct inode *inode;
	int e = shmem_page_inode_get(page, &mapping, &inode);
	if (e)
		return e == -EBUSY ? SWAP_OUT_KEEP : SWAP_OUT_ACTIVATE;
	enum swap_out_result ret = SWAP_OUT_ACTIVATE;
	unsigned long index = page->index;
	/* 1. Every mapping goes (a trylock of the file's i_mmap_rwsem:
	 * reclaim may run under it, in a fork's allocation). */
	if (page_mapcount(page) && !try_unmap_mapping_pages(mapping, index, 1))
		goto out;
	if (page_mapcount(page))
		goto out; /* mapped again meanwhile */
	/* 2. A slot, the swap cache, and the entry in the page's place. */
	swp_entry_t entry = get_swap_page();
	if (!entry.val)
		goto out; /* no swap space */
	add_to_swap_cache(page, entry, NULL); /* a slot just taken: no shadow */
	/* Two references on the slot before the entry is published: the
	 * file's (Linux's swap_shmem_alloc) and the write's own, held across
	 * swap_writepage (Linux holds the folio lock across shmem_writepage).
	 * A truncate once the entry is there (shmem_free_swap ->
	 * free_swap_and_cache) then drops the file's only, and the page stays
	 * in the swap cache: swap_writepage reads its slot from the page,
	 * which out of the cache names slot 0, the area's header. A fresh slot
	 * has room for both (no continuation): an error is a bug's, and the
	 * page stays. */
	int refs = 0;
	while (refs < 2 && !swap_duplicate(entry))
		refs++;
	bool moved = false;
	if (refs == 2) {
		shmem_swap_step(SHMEM_SWAP_OUT_PUBLISH, page, entry);
		/* The list and i_swapped change together under
		 * shmem_swaplist_lock (Linux's shmem_swaplist_mutex across
		 * list_add_tail and info->swapped++): swapoff's
		 * collect_swapped_inodes, which drops a listed file with
		 * i_swapped 0, cannot come in between and lose the file. */
		XA_STATE(xas, &mapping->i_pages, index);
		spin_lock(&shmem_swaplist_lock);
		xas_lock(&xas);
		/* The page cache's reference, the isolation's, the swap
		 * cache's: nothing else (a fault that looked it up meanwhile
		 * holds one). */
		moved = xas_load(&xas) == page && page->mapping == mapping && page_ref_count(page) == 3 &&
			!page_mapcount(page);
		if (moved) {
			xas_store(&xas, xa_mk_value(entry.val));
			mapping->nrpages--;
			inode->i_swapped++;
			WRITE_ONCE(page->mapping, NULL);
			if (!inode->i_swaplist.next)
				list_add_tail(&inode->i_swaplist, &shmem_swaplist);
		}
		xas_unlock(&xas);
		spin_unlock(&shmem_swaplist_lock);
	}
	if (!moved) {
		while (refs--)
			swap_free(entry);
		delete_from_swap_cache(page); /* the slot is free again */
		ret = SWAP_OUT_KEEP;
		goto out;
	}
	filemap_account_file_pages(-1);
	shmem_pages_add(-1);
	put_page(page); /* the page cache's */
	/* 3. Written, with the write's reference on the slot; out of the
	 * swap cache unless a lookup holds it. The page stays isolated, so
	 * that shmem_swapin leaves it alone until the write is done (it
	 * waits for a page it cannot isolate). */
	shmem_swap_step(SHMEM_SWAP_OUT_WRITE, page, entry);
	int err = swap_writepage(page);
	swap_free(entry); /* the write's */
	if (err)
		goto out; /* stays in the swap cache: a lookup finds it there */
	ret = remove_mapping_swapcache(page) ? SWAP_OUT_FREED : SWAP_OUT_KEEP;
out:
	iput(inode);
	return ret;
}

int shmem_split_for_swap(struct page *head, struct list_head *list)
{
	if (!page_test_flag(head, PG_shmem_thp))
		return -EINVAL;
	struct address_space *mapping;
	struct inode *inode;
	int err = shmem_page_inode_get(head, &mapping, &inode);
	if (err)
		return err;
	err = -EBUSY;
	/* Linux's split_huge_page unmaps the folio first (unmap_folio): the
	 * PMDs and PTEs of every mapping go, and fault the pages in again. */
	if (try_unmap_mapping_pages(mapping, head->index, HPAGE_PMD_NR)) {
		long mapped = __atomic_load_n(shmem_thp_pmd_mapcount_ptr(head), __ATOMIC_RELAXED);
		for (unsigned long i = 0; i < HPAGE_PMD_NR; i++)
			mapped += page_mapcount_own(head + i);
		if (!mapped)
			err = filemap_split_folio_isolated(mapping, head, HPAGE_PMD_ORDER, list);
	}
	count_vm_event(err ? THP_SPLIT_PAGE_FAILED : THP_SPLIT_PAGE);
	iput(inode);
	return err;
}

/* Linux's shmem_swapin_folio: the value at index of inode's page cache
 * (the swap entry of a page out) replaced by the page, from the swap
 * cache or read from the slot now; the slot goes. The page with a
 * reference of the caller's; NULL with *err 0 (the entry changed
 * meanwhile: look again), -ENOMEM or -EIO. */
static struct page *shmem_swapin(struct inode *inode, unsigned long index, void *value, int *err)
{
	struct address_space *mapping = inode->i_mapping;
	swp_entry_t entry = { xa_to_value(value) };
	*err = 0;
	/* The page is kept off the LRU from here until it has left the swap
	 * cache (Linux holds the folio lock across shmem_swapin_folio), so
	 * that reclaim cannot take it in between: not as an unmapped
	 * swap-cache page before the handover (swap_out_folio, whose write
	 * would read slot 0 from a page this takes out of the swap cache),
	 * nor as a tmpfs page after it (shmem_swap_out would put a page that
	 * is in the swap cache into it again). */
	struct page *page = lookup_swap_cache(entry);
	bool read = !page;
	if (page && isolate_lru_page(page)) {
		/* Someone else has it isolated: reclaim writing it (its
		 * write must find it still in the swap cache), compaction,
		 * another lookup bringing it in. Again once they let it go. */
		put_page(page);
		schedule();
		return NULL;
	}
	if (read) {
		/* Where the file's policy puts its index (Linux's
		 * shmem_swapin_cluster under the shared policy). */
		page = shmem_alloc_policy_page(&inode->i_policy, index, inode->i_ino + index);
		if (!page) {
			*err = -ENOMEM;
			return NULL;
		}
		int e = swapcache_prepare(entry);
		if (e) {
			/* -EEXIST: another lookup is reading it, or reclaim
			 * is taking it out of the cache; -ENOENT: freed (a
			 * truncate). Either way: look again. */
			put_page(page);
			if (e == -EEXIST)
				schedule();
			return NULL;
		}
		if (swap_readpage(page, entry)) {
			put_swap_folio(entry);
			put_page(page);
			*err = -EIO;
			return NULL;
		}
		/* In the swap cache, not on the LRU until it has left it. */
		void *shadow;
		add_to_swap_cache(page, entry, &shadow);
		if (shadow) /* Linux's shmem swap-in refaults as anon's does */
			workingset_refault(page, shadow);
	}
	shmem_swap_step(SHMEM_SWAPIN_CACHED, page, entry);
	XA_STATE(xas, &mapping->i_pages, index);
	xas_lock(&xas);
	bool ours = xas_load(&xas) == value && PageSwapCache(page) && page_swap_entry(page).val == entry.val;
	if (ours) {
		xas_store(&xas, page);
		get_page(page); /* the page cache's */
		page->mapping = mapping;
		page->index = index;
		mapping->nrpages++;
		inode->i_swapped--;
	}
	xas_unlock(&xas);
	if (ours) {
		filemap_account_file_pages(1);
		shmem_pages_add(1);
		shmem_swap_step(SHMEM_SWAPIN_HANDED_OVER, page, entry);
		/* Linux's: out of the swap cache, the file's reference on the
		 * slot gone (the slot is free). */
		delete_from_swap_cache(page);
		swap_free(entry);
	} else {
		/* The entry went meanwhile (a truncate): so does the page,
		 * unless its slot is still named (Linux leaves it in the swap
		 * cache for reclaim). */
		try_to_free_swap(page);
	}
	/* On the LRU again (or for the first time), with the caller's
	 * reference: the lookup's, or the allocation's. */
	if (read)
		folio_add_lru(page);
	else
		putback_lru_page(page); /* the isolation's reference goes */
	if (ours)
		return page;
	put_page(page);
	return NULL;
}

struct page *shmem_find_folio(struct inode *inode, unsigned long index, int *err)
{
	struct address_space *mapping = inode->i_mapping;
	*err = 0;
	for (;;) {
		XA_STATE(xas, &mapping->i_pages, index);
		xas_lock(&xas);
		struct page *page = xas_load(&xas);
		if (page && !xa_is_value(page))
			get_page(page);
		xas_unlock(&xas);
		if (!xa_is_value(page))
			return page; /* a page, or a hole */
		page = shmem_swapin(inode, index, page, err);
		if (page || *err)
			return page;
		cond_resched();
	}
}

struct page *shmem_read_folio(struct address_space *mapping, unsigned long index)
{
	int err;
	return shmem_find_folio(mapping->host, index, &err);
}

void shmem_free_swap(struct address_space *mapping, unsigned long index, void *value)
{
	struct inode *inode = mapping->host;
	XA_STATE(xas, &mapping->i_pages, index);
	xas_lock(&xas);
	bool ours = xas_load(&xas) == value;
	if (ours) {
		xas_store(&xas, NULL);
		inode->i_swapped--;
	}
	xas_unlock(&xas);
	if (!ours)
		return; /* brought back meanwhile: the truncate takes the page */
	/* The page the file held is gone: size= and i_blocks let it go
	 * (Linux's shmem_recalc_inode); Shmem stopped counting it when it
	 * went to swap. */
	shmem_inode_unacct_blocks(inode, 1);
	inode->i_blocks -= PAGE_SIZE / 512;
	free_swap_and_cache((swp_entry_t){ xa_to_value(value) });
}

/* Every page of inode out on area type brought back (Linux's
 * shmem_unuse_inode, shmem_find_swap_entries). 0 or -errno. */
static int shmem_unuse_inode(struct inode *inode, unsigned int type)
{
	struct address_space *mapping = inode->i_mapping;
	unsigned long index = 0;
	for (;;) {
		xa_lock(&mapping->i_pages);
		void *entry = xa_find(&mapping->i_pages, &index, ~0ul, XA_PRESENT);
		while (entry && !(xa_is_value(entry) && swp_type((swp_entry_t){ xa_to_value(entry) }) == type)) {
			if (index == ~0ul) {
				entry = NULL;
				break;
			}
			index++;
			entry = xa_find(&mapping->i_pages, &index, ~0ul, XA_PRESENT);
		}
		xa_unlock(&mapping->i_pages);
		if (!entry)
			return 0;
		int err;
		struct page *page = shmem_find_folio(inode, index, &err);
		if (err)
			return err;
		if (page)
			put_page(page);
		if (signal_pending(current))
			return -EINTR;
		cond_resched();
	}
}

/* The files of the list that still have pages out, each with a
 * reference (iput them), in a kvmalloc'd array: how many, or -ENOMEM.
 * Those with none left leave the list. */
static int collect_swapped_inodes(struct inode ***out)
{
	for (int size = 16;; size *= 2) {
		struct inode **inodes = kvmalloc_array((size_t)size, sizeof(*inodes), GFP_KERNEL);
		*out = NULL;
		if (!inodes)
			return -ENOMEM;
		int n = 0;
		bool fits = true;
		spin_lock(&shmem_swaplist_lock);
		struct inode *inode, *next;
		list_for_each_entry_safe(inode, next, &shmem_swaplist, i_swaplist) {
			if (!READ_ONCE(inode->i_swapped)) {
				list_del(&inode->i_swaplist);
				inode->i_swaplist.next = inode->i_swaplist.prev = NULL;
				continue;
			}
			if (n == size) {
				fits = false;
				break;
			}
			if (inode_get_unless_zero(inode)) /* else being evicted: its truncate frees its slots */
				inodes[n++] = inode;
		}
		spin_unlock(&shmem_swaplist_lock);
		if (fits) {
			*out = inodes;
			return n;
		}
		for (int i = 0; i < n; i++)
			iput(inodes[i]);
		kvfree(inodes);
	}
}

int shmem_unuse(unsigned int type)
{
	struct inode **inodes;
	int n = collect_swapped_inodes(&inodes), err = n < 0 ? n : 0;
	for (int i = 0; i < n; i++) {
		if (!err)
			err = shmem_unuse_inode(inodes[i], type);
		iput(inodes[i]);
	}
	kvfree(inodes);
	return err;
}

unsigned long shmem_swap_usage(struct address_space *mapping, unsigned long first, unsigned long last)
{
	unsigned long swapped = 0, index = first;
	xa_lock(&mapping->i_pages);
	struct inode *inode = mapping->host;
	if (!first && last == ~0ul) {
		swapped = inode->i_swapped;
	} else if (inode->i_swapped) {
		/* Linux's shmem_partial_swap_usage: the values in the range. */
		void *entry;
		while (index <= last && (entry = xa_find(&mapping->i_pages, &index, last, XA_PRESENT))) {
			swapped += xa_is_value(entry);
			if (index == last)
				break;
			index++;
		}
	}
	xa_unlock(&mapping->i_pages);
	return swapped << PAGE_SHIFT;
}
