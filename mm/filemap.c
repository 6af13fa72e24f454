/* The page cache (Linux's mm/filemap.c, mm/truncate.c): mm/filemap.h has
 * the rules. Where Linux indexes a mapping with an xarray, mmlab keeps an
 * rbtree of small nodes, one per page, in index order: the same
 * questions (the page at an index, the next present index, every page
 * from an index on) in O(log n). */
#include "mm/filemap.h"
#include "arch/x86_64/uaccess.h"
#include "kernel/sched.h"
#include "kernel/signal.h"
#include "lib/string.h"
#include "mm/memory.h"
#include "mm/page_alloc.h"
#include "mm/shmem.h"
#include "mm/util.h"
#include "mm/slab.h"

struct page_cache_node {
	struct rb_node rb;
	unsigned long index;
	struct page *page;
};

static long file_pages;

unsigned long nr_file_pages(void)
{
	long n = __atomic_load_n(&file_pages, __ATOMIC_RELAXED);
	return n < 0 ? 0 : (unsigned long)n;
}

void address_space_init(struct address_space *mapping, struct inode *host)
{
	mapping->host = host;
	spin_lock_init(&mapping->i_pages_lock);
	mapping->i_pages = RB_ROOT;
	mapping->nrpages = 0;
	mapping->i_mmap_writable = 0;
	mapping->i_mmap = RB_ROOT;
	init_rwsem(&mapping->i_mmap_rwsem);
}

/* The node at index, or the first one after it (ceil), or NULL. */
static struct page_cache_node *find_node(struct address_space *mapping, unsigned long index, bool ceil)
{
	struct rb_node *n = mapping->i_pages.rb_node;
	struct page_cache_node *best = NULL;
	while (n) {
		struct page_cache_node *pc = rb_entry(n, struct page_cache_node, rb);
		if (index < pc->index) {
			best = pc;
			n = n->rb_left;
		} else if (index > pc->index) {
			n = n->rb_right;
		} else {
			return pc;
		}
	}
	return ceil ? best : NULL;
}

struct page *filemap_get_folio(struct address_space *mapping, unsigned long index)
{
	spin_lock(&mapping->i_pages_lock);
	struct page_cache_node *pc = find_node(mapping, index, false);
	struct page *page = pc ? pc->page : NULL;
	if (page)
		get_page(page);
	spin_unlock(&mapping->i_pages_lock);
	return page;
}

int filemap_add_folio_range(struct address_space *mapping, struct page *page, unsigned long index,
			    unsigned long nr)
{
	/* The nodes first, outside the lock: all of them or none. */
	struct page_cache_node *one, **pcs = nr == 1 ? &one : kvmalloc(nr * sizeof(*pcs), GFP_KERNEL);
	if (!pcs)
		return -ENOMEM;
	for (unsigned long i = 0; i < nr; i++) {
		pcs[i] = kmalloc(sizeof(*pcs[i]), GFP_KERNEL);
		if (!pcs[i]) {
			while (i--)
				kfree(pcs[i]);
			if (pcs != &one)
				kvfree(pcs);
			return -ENOMEM;
		}
		pcs[i]->index = index + i;
		pcs[i]->page = page + i;
	}
	spin_lock(&mapping->i_pages_lock);
	struct page_cache_node *other = find_node(mapping, index, true);
	if (other && other->index < index + nr) {
		spin_unlock(&mapping->i_pages_lock);
		for (unsigned long i = 0; i < nr; i++)
			kfree(pcs[i]);
		if (pcs != &one)
			kvfree(pcs);
		return -EEXIST;
	}
	for (unsigned long i = 0; i < nr; i++) {
		struct rb_node **link = &mapping->i_pages.rb_node, *parent = NULL;
		while (*link) {
			parent = *link;
			link = index + i < rb_entry(parent, struct page_cache_node, rb)->index ? &parent->rb_left
												: &parent->rb_right;
		}
		rb_link_node(&pcs[i]->rb, parent, link);
		rb_insert_color(&pcs[i]->rb, &mapping->i_pages);
		/* Each index's reference is the head's (get_page). */
		get_page(page + i);
		page[i].mapping = mapping;
		page[i].index = index + i;
	}
	mapping->nrpages += nr;
	spin_unlock(&mapping->i_pages_lock);
	if (pcs != &one)
		kvfree(pcs);
	/* Linux's __filemap_add_folio: hugetlb pages are not file pages
	 * (Cached); the pools count them. */
	if (!PageHugetlb(page))
		__atomic_add_fetch(&file_pages, (long)nr, __ATOMIC_RELAXED);
	return 0;
}

int __filemap_add_folio(struct address_space *mapping, struct page *page, unsigned long index)
{
	return filemap_add_folio_range(mapping, page, index, 1);
}

bool filemap_remove_folio(struct page *page)
{
	/* Two may race to remove one page (a fault that added it past a new
	 * end, and the truncate): the loser finds it gone from the tree, or
	 * its mapping cleared already. */
	struct address_space *mapping = READ_ONCE(page->mapping);
	if (!mapping)
		return false;
	spin_lock(&mapping->i_pages_lock);
	struct page_cache_node *pc = find_node(mapping, page->index, false);
	if (pc && pc->page == page) {
		rb_erase(&pc->rb, &mapping->i_pages);
		mapping->nrpages--;
		WRITE_ONCE(page->mapping, NULL);
	} else {
		pc = NULL;
	}
	spin_unlock(&mapping->i_pages_lock);
	if (!pc)
		return false;
	kfree(pc);
	if (!PageHugetlb(page))
		__atomic_sub_fetch(&file_pages, 1, __ATOMIC_RELAXED);
	put_page(page);
	return true;
}

int filemap_migrate_folio(struct address_space *mapping, struct page *new, struct page *old, int extra_count,
			  unsigned int order)
{
	int ret = -EAGAIN;
	spin_lock(&mapping->i_pages_lock);
	struct page_cache_node *pc = find_node(mapping, old->index, false);
	/* Linux's folio_ref_freeze of the expected count: every reference
	 * lookup gives is taken under this lock, so none comes while it is
	 * held; a reader or writer holding one keeps the page where it is. */
	if (pc && pc->page == old && old->mapping == mapping && page_mapcount(old) == 0 &&
	    page_ref_count(old) == 1 + extra_count) {
		memcpy(page_address(new), page_address(old), PAGE_SIZE << order);
		get_page(new); /* the page cache's */
		new->mapping = mapping;
		new->index = old->index;
		pc->page = new;
		WRITE_ONCE(old->mapping, NULL); /* a fault that found it sees it gone (shmem_page_current) */
		ret = 0;
	}
	spin_unlock(&mapping->i_pages_lock);
	if (!ret)
		put_page(old); /* the page cache's */
	return ret;
}

int filemap_split_folio(struct address_space *mapping, struct page *head, unsigned int order)
{
	unsigned long nr = 1ul << order;
	int ret = -EBUSY;
	spin_lock(&mapping->i_pages_lock);
	/* Linux's folio_ref_freeze: every index's reference and no other.
	 * A lookup takes its reference under this lock, and a mapping holds
	 * one from before it is made until after it is gone, so nobody can
	 * reach the pages while the count is 0. */
	struct page_cache_node *pc = find_node(mapping, head->index, false);
	if (pc && pc->page == head && head->mapping == mapping &&
	    __atomic_compare_exchange_n(&head->_refcount, &(int){ (int)nr }, 0, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		shmem_thp_prep_free(head);
		split_page(head, order); /* each page its own, one reference: its index's */
		set_page_count(head, 1);
		ret = 0;
	}
	spin_unlock(&mapping->i_pages_lock);
	return ret;
}

unsigned long truncate_inode_pages_range(struct address_space *mapping, long lstart, long lend)
{
	unsigned long removed = 0;
	unsigned long start = (unsigned long)(lstart + PAGE_SIZE - 1) >> PAGE_SHIFT;
	/* The first page past the range, or every page to the end. */
	unsigned long end = lend < 0 ? ~0ul : (unsigned long)(lend + 1) >> PAGE_SHIFT;
	for (;;) {
		spin_lock(&mapping->i_pages_lock);
		struct page_cache_node *pc = find_node(mapping, start, true);
		struct page *page = pc && pc->index < end ? pc->page : NULL;
		spin_unlock(&mapping->i_pages_lock);
		if (!page)
			return removed;
		removed += filemap_remove_folio(page);
	}
}

unsigned long truncate_inode_pages(struct address_space *mapping, long lstart)
{
	return truncate_inode_pages_range(mapping, lstart, -1);
}

unsigned long filemap_next_index(struct address_space *mapping, unsigned long index, unsigned long end,
				 bool data)
{
	spin_lock(&mapping->i_pages_lock);
	struct page_cache_node *pc = find_node(mapping, index, true);
	if (data) {
		index = pc ? pc->index : end;
	} else {
		/* The first gap: walk the run of present pages from index. */
		while (pc && pc->index == index && index < end) {
			index++;
			struct rb_node *next = rb_next(&pc->rb);
			pc = next ? rb_entry(next, struct page_cache_node, rb) : NULL;
		}
	}
	spin_unlock(&mapping->i_pages_lock);
	return min(index, end);
}

long filemap_read(struct file *f, char *dst, size_t count, long *pos, bool user)
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
		struct page *page = filemap_get_folio(mapping, index);
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
	spin_lock(&mapping->i_pages_lock);
	struct page_cache_node *pc = find_node(mapping, *index, true);
	struct page *page = pc && pc->index <= last ? pc->page : NULL;
	if (page) {
		get_page(page);
		*index = pc->index;
	}
	spin_unlock(&mapping->i_pages_lock);
	return page;
}
