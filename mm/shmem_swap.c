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
 * i_swapped; shmem_swaplist_lock the list; an inode on the list is kept
 * by a reference while shmem_unuse works on it. */
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
#include "mm/vmstat.h"
#include "mm/util.h"
#include "mm/slab.h"
#include "kernel/signal.h"

static DEFINE_SPINLOCK(shmem_swaplist_lock);
static LIST_HEAD(shmem_swaplist);

static void shmem_swaplist_add(struct inode *inode)
{
	spin_lock(&shmem_swaplist_lock);
	if (!inode->i_swaplist.next)
		list_add_tail(&inode->i_swaplist, &shmem_swaplist);
	spin_unlock(&shmem_swaplist_lock);
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

enum swap_out_result shmem_swap_out(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->mapping);
	if (!mapping || !shmem_mapping(mapping) || page_test_flag(compound_head(page), PG_shmem_thp))
		return SWAP_OUT_ACTIVATE; /* a huge page: Linux splits it first */
	struct inode *inode = mapping->host;
	if (!inode_get_unless_zero(inode))
		return SWAP_OUT_KEEP; /* being evicted: its truncate frees the page */
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
	swap_duplicate(entry); /* the file's reference (Linux's swap_shmem_alloc) */
	/* Before the entry is there for shmem_unuse to find. */
	shmem_swaplist_add(inode);
	XA_STATE(xas, &mapping->i_pages, index);
	xas_lock(&xas);
	/* The page cache's reference, the isolation's, the swap cache's:
	 * nothing else (a fault that looked it up meanwhile holds one). */
	bool moved = xas_load(&xas) == page && page->mapping == mapping && page_ref_count(page) == 3 &&
		     !page_mapcount(page);
	if (moved) {
		xas_store(&xas, xa_mk_value(entry.val));
		mapping->nrpages--;
		inode->i_swapped++;
		WRITE_ONCE(page->mapping, NULL);
	}
	xas_unlock(&xas);
	if (!moved) {
		swap_free(entry);
		delete_from_swap_cache(page); /* the slot is free again */
		ret = SWAP_OUT_KEEP;
		goto out;
	}
	filemap_account_file_pages(-1);
	shmem_pages_add(-1);
	put_page(page); /* the page cache's */
	/* 3. Written; out of the swap cache unless a lookup holds it. A
	 * reference of the write's own on the slot keeps the page in the
	 * swap cache while it is written (Linux holds the folio lock): a
	 * truncate meanwhile (free_swap_and_cache) cannot take it out, and
	 * shmem_swapin leaves a page reclaim holds isolated alone. */
	swap_duplicate(entry);
	int err = swap_writepage(page);
	swap_free(entry);
	if (err)
		goto out; /* stays in the swap cache: a lookup finds it there */
	ret = remove_mapping_swapcache(page) ? SWAP_OUT_FREED : SWAP_OUT_KEEP;
out:
	iput(inode);
	return ret;
}

int shmem_split_for_swap(struct page *head, struct list_head *list)
{
	struct address_space *mapping = READ_ONCE(head->mapping);
	if (!mapping || !shmem_mapping(mapping) || !page_test_flag(head, PG_shmem_thp))
		return -EINVAL;
	struct inode *inode = mapping->host;
	if (!inode_get_unless_zero(inode))
		return -EBUSY;
	int err = -EBUSY;
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
	struct page *page = lookup_swap_cache(entry);
	if (page && !page_test_flag(page, PG_lru)) {
		/* Isolated: reclaim may be writing it (shmem_swap_out), and
		 * its write must find it still in the swap cache. Again once
		 * reclaim has let it go (freed, or back on the LRU). */
		put_page(page);
		schedule();
		return NULL;
	}
	if (!page) {
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
		void *shadow;
		add_to_swap_cache(page, entry, &shadow);
		if (shadow) /* Linux's shmem swap-in refaults as anon's does */
			workingset_refault(page, shadow);
		folio_add_lru(page);
	}
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
	if (!ours) {
		put_page(page);
		return NULL;
	}
	filemap_account_file_pages(1);
	shmem_pages_add(1);
	/* Linux's: out of the swap cache, the file's reference on the slot
	 * gone (the slot is free). */
	delete_from_swap_cache(page);
	swap_free(entry);
	return page;
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
