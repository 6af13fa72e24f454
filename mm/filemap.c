/* The page cache (Linux's mm/filemap.c, mm/truncate.c): mm/filemap.h has
 * the rules. A mapping's pages are indexed by an xarray (lib/xarray.h),
 * mapping->i_pages, as Linux's: the page at an index, the next present
 * index and every page from an index on are walks of a radix tree of
 * 64-slot nodes. A huge page (a tmpfs THP) is stored once per index, 512
 * entries, as Linux's page cache did before multi-index folios (Linux
 * 6.1 stores one order-9 entry); mmlab's xarray builds no multi-index
 * entries. No code here sets a mark: Linux's tmpfs and hugetlbfs dirty
 * their pages with noop_dirty_folio, which tags nothing, and mmlab has
 * no file system with writeback (docs/page_cache.md says which users
 * take PAGECACHE_TAG_DIRTY, _WRITEBACK and _TOWRITE in Linux).
 *
 * Lookups take xa_lock rather than Linux's RCU walk with a speculative
 * reference (filemap_get_entry: folio_try_get_rcu, then a recheck of the
 * slot). A speculative reference can land on a page that was freed and
 * reused meanwhile, so Linux frees every page by dropping a reference
 * (put_page_testzero) and freezes the count wherever it judges a page by
 * it (folio_ref_freeze). Here __free_pages frees whatever the count, and
 * filemap_migrate_folio compares the count under this lock without
 * freezing it: a speculative reference would be lost or go unseen. */
#include "mm/swap.h"
#include "mm/filemap.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/string.h"
#include "mm/memory.h"
#include "mm/mm_inline.h"
#include "mm/page_alloc.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/shmem_swap.h"
#include "mm/util.h"

static long file_pages;

unsigned long nr_file_pages(void)
{
	long n = __atomic_load_n(&file_pages, __ATOMIC_RELAXED);
	return n < 0 ? 0 : (unsigned long)n;
}

void filemap_account_file_pages(long nr)
{
	__atomic_add_fetch(&file_pages, nr, __ATOMIC_RELAXED);
}

void address_space_init(struct address_space *mapping, struct inode *host)
{
	mapping->host = host;
	mapping->a_ops = NULL;
	xa_init(&mapping->i_pages);
	mapping->nrpages = 0;
	mapping->i_mmap_writable = 0;
	mapping->i_mmap = RB_ROOT;
	init_rwsem(&mapping->i_mmap_rwsem);
}

struct page *filemap_get_folio(struct address_space *mapping, unsigned long index)
{
	XA_STATE(xas, &mapping->i_pages, index);
	xas_lock(&xas);
	struct page *page = xas_load(&xas);
	if (xa_is_value(page))
		page = NULL; /* a tmpfs page out on swap (mm/shmem_swap.c): none here */
	if (page)
		get_page(page);
	xas_unlock(&xas);
	return page;
}

int filemap_add_folio_range(struct address_space *mapping, struct page *page, unsigned long index,
			    unsigned long nr, gfp_t gfp)
{
	XA_STATE(xas, &mapping->i_pages, index);
	gfp &= GFP_RECLAIM_MASK;
	do {
		xas_lock(&xas);
		/* Linux's xas_for_each_conflict: anything in the range. One
		 * index is one load, which leaves xas where the store goes. */
		xas_set(&xas, index);
		if (nr == 1 ? xas_load(&xas) != NULL : xas_find(&xas, index + nr - 1) != NULL) {
			xas_set_err(&xas, -EEXIST);
			goto unlock;
		}
		if (nr > 1)
			xas_set(&xas, index);
		unsigned long i;
		for (i = 0; i < nr; i++) {
			/* Index by index, as Linux 5.x stored a huge page:
			 * xas_next moves to the next slot without going back
			 * to the head. */
			if (i)
				xas_next(&xas);
			xas_store(&xas, page + i);
			if (xas_error(&xas))
				break;
		}
		if (i < nr) {
			/* Out of nodes: the indices stored go again, so no
			 * lookup meets part of the page while the lock is
			 * dropped for xas_nomem, and the store is retried. */
			int err = xas_error(&xas);
			for (unsigned long j = 0; j < i; j++) {
				xas_set(&xas, index + j);
				xas_store(&xas, NULL);
			}
			xas_set(&xas, index + i);
			xas_set_err(&xas, err);
			goto unlock;
		}
		for (i = 0; i < nr; i++) {
			/* Each index's reference is the head's (get_page). */
			get_page(page + i);
			page[i].mapping = mapping;
			page[i].index = index + i;
		}
		mapping->nrpages += nr;
unlock:
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp));
	if (xas_error(&xas))
		return xas_error(&xas);
	/* Linux's __filemap_add_folio: hugetlb pages are not file pages
	 * (Cached); the pools count them. */
	if (!PageHugetlb(page))
		__atomic_add_fetch(&file_pages, (long)nr, __ATOMIC_RELAXED);
	return 0;
}

int __filemap_add_folio(struct address_space *mapping, struct page *page, unsigned long index, gfp_t gfp)
{
	return filemap_add_folio_range(mapping, page, index, 1, gfp);
}

bool filemap_remove_folio(struct page *page)
{
	/* Two may race to remove one page (a fault that added it past a new
	 * end, and the truncate): the loser finds it gone from the tree, or
	 * its mapping cleared already. */
	struct address_space *mapping = READ_ONCE(page->mapping);
	if (!mapping)
		return false;
	XA_STATE(xas, &mapping->i_pages, page->index);
	bool removed = false;
	xas_lock(&xas);
	if (xas_load(&xas) == page) {
		/* Linux's page_cache_delete: the marks go with the entry. */
		xas_store(&xas, NULL);
		mapping->nrpages--;
		WRITE_ONCE(page->mapping, NULL);
		removed = true;
	}
	xas_unlock(&xas);
	if (!removed)
		return false;
	if (!PageHugetlb(page))
		__atomic_sub_fetch(&file_pages, 1, __ATOMIC_RELAXED);
	/* Linux's filemap_free_folio: the file system's last word on it. */
	if (mapping->a_ops && mapping->a_ops->free_folio)
		mapping->a_ops->free_folio(page);
	put_page(page);
	return true;
}

/* The holders of page_mapping_get read-lock it; an inode's free waits
 * for them with a write lock it drops at once. A holder that found a
 * mapping saw the page in it, so its truncate (page->mapping cleared
 * under xa_lock) and the free after it come after the read lock was
 * taken: the free waits for the holder. */
static DECLARE_RWSEM(mapping_free_rwsem);

struct address_space *page_mapping_get(struct page *page)
{
	down_read(&mapping_free_rwsem);
	unsigned long m = (unsigned long)READ_ONCE(page->mapping);
	if (m && !(m & PAGE_MAPPING_ANON))
		return (struct address_space *)m;
	up_read(&mapping_free_rwsem);
	return NULL;
}

void page_mapping_put(void)
{
	up_read(&mapping_free_rwsem);
}

void mapping_free_barrier(void)
{
	down_write(&mapping_free_rwsem);
	up_write(&mapping_free_rwsem);
}

int filemap_migrate_folio(struct address_space *mapping, struct page *new, struct page *old, int extra_count,
			  unsigned int order)
{
	if (mapping->a_ops && mapping->a_ops->migrate_folio)
		return mapping->a_ops->migrate_folio(mapping, new, old);
	XA_STATE(xas, &mapping->i_pages, old->index);
	int ret = -EAGAIN;
	xas_lock(&xas);
	/* Linux's folio_ref_freeze of the expected count: every reference
	 * lookup gives is taken under this lock, so none comes while it is
	 * held; a reader or writer holding one keeps the page where it is. */
	if (xas_load(&xas) == old && old->mapping == mapping && page_mapcount(old) == 0 &&
	    page_ref_count(old) == 1 + extra_count) {
		memcpy(page_address(new), page_address(old), PAGE_SIZE << order);
		get_page(new); /* the page cache's */
		new->mapping = mapping;
		new->index = old->index;
		/* Replacing an entry allocates nothing and keeps its marks
		 * (Linux's folio_migrate_mapping). */
		xas_store(&xas, new);
		WRITE_ONCE(old->mapping, NULL); /* a fault that found it sees it gone (shmem_page_current) */
		ret = 0;
	}
	xas_unlock(&xas);
	if (!ret) {
		folio_migrate_lru(new, old);
		put_page(old); /* the page cache's */
	}
	return ret;
}

int filemap_split_folio(struct address_space *mapping, struct page *head, unsigned int order)
{
	XA_STATE(xas, &mapping->i_pages, head->index);
	unsigned long nr = 1ul << order;
	int ret = -EBUSY;
	xas_lock(&xas);
	/* Linux's folio_ref_freeze: every index's reference and no other.
	 * A lookup takes its reference under this lock, and a mapping holds
	 * one from before it is made until after it is gone, so nobody can
	 * reach the pages while the count is 0. Every index already holds
	 * its own page (one entry per index), so the tree does not change:
	 * Linux's xas_split of a multi-index entry has nothing to do here. */
	if (xas_load(&xas) == head && head->mapping == mapping &&
	    __atomic_compare_exchange_n(&head->_refcount, &(int){ (int)nr }, 0, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		shmem_thp_prep_free(head);
		split_page(head, order); /* each page its own, one reference: its index's */
		/* One LRU entry becomes nr, while no reference can be taken
		 * (mm/swap.c); after the THP's marks, whose words in the
		 * second page become its LRU links. */
		lru_split_folio(head, nr);
		set_page_count(head, 1);
		ret = 0;
	}
	xas_unlock(&xas);
	return ret;
}

int filemap_split_folio_isolated(struct address_space *mapping, struct page *head, unsigned int order,
				 struct list_head *list)
{
	XA_STATE(xas, &mapping->i_pages, head->index);
	unsigned long nr = 1ul << order;
	int ret = -EBUSY;
	xas_lock(&xas);
	/* Every index's reference and the isolation's, no other. */
	if (xas_load(&xas) == head && head->mapping == mapping &&
	    __atomic_compare_exchange_n(&head->_refcount, &(int){ (int)nr + 1 }, 0, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		unsigned long keep = head->flags & ((1ul << PG_active) | (1ul << PG_referenced) | (1ul << PG_swapbacked));
		shmem_thp_prep_free(head);
		split_page(head, order);
		for (unsigned long i = 1; i < nr; i++) {
			__atomic_or_fetch(&head[i].flags, keep, __ATOMIC_RELAXED);
			set_page_count(head + i, 2); /* its index's and the isolation's */
			list_add_tail(folio_lru(head + i), list);
		}
		set_page_count(head, 2);
		ret = 0;
	}
	xas_unlock(&xas);
	return ret;
}

unsigned long truncate_inode_pages_range(struct address_space *mapping, long lstart, long lend)
{
	unsigned long removed = 0;
	unsigned long start = (unsigned long)(lstart + PAGE_SIZE - 1) >> PAGE_SHIFT;
	/* The first page past the range, or every page to the end. */
	unsigned long end = lend < 0 ? ~0ul : (unsigned long)(lend + 1) >> PAGE_SHIFT;
	if (end <= start)
		return 0;
	/* Forward through the range, one page at a time (filemap_remove_folio
	 * takes the lock), then again from the start until a pass finds
	 * nothing: a fault racing the truncate may add a page behind the
	 * cursor (Linux's shmem_undo_range restarts so). A search from the
	 * start for every page would pass over the emptied slots again and
	 * again. */
	unsigned long index = start;
	bool pass_removed = false;
	for (;;) {
		xa_lock(&mapping->i_pages);
		struct page *page = xa_find(&mapping->i_pages, &index, end - 1, XA_PRESENT);
		xa_unlock(&mapping->i_pages);
		if (!page) {
			if (!pass_removed)
				return removed;
			pass_removed = false;
			index = start;
			continue;
		}
		if (xa_is_value(page)) {
			/* A tmpfs page out on swap: its slot goes (Linux's
			 * shmem_free_swap); not a page of the cache, so not
			 * counted in what was removed. */
			shmem_free_swap(mapping, index, page);
			pass_removed = true;
			index++;
			continue;
		}
		/* Gone or replaced (a migration) meanwhile: look again here. */
		if (!filemap_remove_folio(page))
			continue;
		removed++;
		pass_removed = true;
		index++; /* at most end: end - 1 < ~0ul */
	}
}

unsigned long truncate_inode_pages(struct address_space *mapping, long lstart)
{
	return truncate_inode_pages_range(mapping, lstart, -1);
}

unsigned long filemap_next_index(struct address_space *mapping, unsigned long index, unsigned long end,
				 bool data)
{
	XA_STATE(xas, &mapping->i_pages, index);
	if (index >= end)
		return end;
	xas_lock(&xas);
	if (data) {
		index = xas_find(&xas, end - 1) ? xas.xa_index : end;
	} else {
		/* The first gap (Linux's page_cache_next_miss): xas_next
		 * steps index by index without going back to the head. */
		while (xas.xa_index < end) {
			if (!xas_next(&xas))
				break;
			if (xas.xa_index == ~0ul) {
				xas.xa_index = end;
				break;
			}
		}
		index = xas.xa_index;
	}
	xas_unlock(&xas);
	return min(index, end);
}

long filemap_read(struct file *f, char *dst, size_t count, long *pos, bool user)
{
	return filemap_read_by(f, dst, count, pos, user, filemap_get_folio);
}

long filemap_read_by(struct file *f, char *dst, size_t count, long *pos, bool user,
		     struct page *(*get_folio)(struct address_space *mapping, unsigned long index))
{
	struct inode *inode = f->f_inode;
	struct address_space *mapping = f->f_mapping;
	long done = 0;
	down_read(&inode->i_rwsem);
	long size = inode->i_size;
	while (count && *pos < size) {
		unsigned long index = (unsigned long)*pos >> PAGE_SHIFT;
		size_t offset = (size_t)*pos & (PAGE_SIZE - 1);
		size_t n = min((size_t)PAGE_SIZE - offset, count);
		n = min(n, (size_t)(size - *pos));
		struct page *page = get_folio(mapping, index);
		unsigned long left;
		if (page) {
			left = file_copy_out(dst + done, (char *)page_address(page) + offset, n, user);
			put_page(page);
		} else if (user) { /* a hole reads as zeros */
			left = clear_user(dst + done, n);
		} else {
			memset(dst + done, 0, n);
			left = 0;
		}
		done += (long)(n - left);
		*pos += (long)(n - left);
		count -= n - left;
		if (left)
			break;
	}
	inode->i_atime = current_time();
	up_read(&inode->i_rwsem);
	return done ? done : (count && *pos < size ? -EFAULT : 0);
}

int generic_write_check_limits(struct file *f, long pos, size_t *count)
{
	(void)f; /* Linux looks at O_LARGEFILE, which x86_64's open forces */
	unsigned long limit = rlimit(RLIMIT_FSIZE);
	if (pos < 0)
		return 0; /* the caller's rw_verify_area refuses it (copy_file_range) */
	if (limit != RLIM_INFINITY) {
		if ((unsigned long)pos >= limit) {
			send_sig(SIGXFSZ, current);
			return -EFBIG;
		}
		*count = min(*count, (size_t)(limit - (unsigned long)pos));
	}
	if (pos >= MAX_LFS_FILESIZE)
		return -EFBIG;
	*count = min(*count, (size_t)(MAX_LFS_FILESIZE - pos));
	return 0;
}

bool filemap_index_in_size(struct inode *inode, unsigned long index)
{
	return index < ((unsigned long)READ_ONCE(inode->i_size) + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

struct page *filemap_get_next_folio(struct address_space *mapping, unsigned long *index, unsigned long last)
{
	XA_STATE(xas, &mapping->i_pages, *index);
	if (*index > last)
		return NULL;
	xas_lock(&xas);
	struct page *page = xas_find(&xas, last);
	while (xa_is_value(page)) /* out on swap: not for fault-around */
		page = xas_find(&xas, last);
	if (page) {
		get_page(page);
		*index = xas.xa_index;
	}
	xas_unlock(&xas);
	return page;
}
