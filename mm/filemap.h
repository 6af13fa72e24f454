/* The page cache (Linux's mm/filemap.c and mm/truncate.c): a file's
 * pages, each at its page offset in the file's address_space
 * (fs/fs.h), read through by read(2), filled by the file system's write,
 * and dropped by truncate and when the inode goes.
 *
 * Invariants: a page in a mapping has one reference of the mapping's,
 * page->mapping pointing to it and page->index its offset; at most one
 * page per index. Locking: the xarray's lock, xa_lock(&mapping->i_pages)
 * (Linux's i_pages lock, which Linux takes with xa_lock_irq: nothing here
 * takes it from an interrupt), guards the entries, their marks and
 * nrpages; lookups take it too (mm/filemap.c says why not RCU). Adding
 * and removing pages happens under the inode's i_rwsem held for writing
 * (write, truncate), and reads hold it for reading, so a page found is
 * not removed under a reader. */
#ifndef MM_FILEMAP_H
#define MM_FILEMAP_H

#include "fs/fs.h"

void address_space_init(struct address_space *mapping, struct inode *host);
/* The page at index with a reference of the caller's, or NULL (a hole,
 * or a tmpfs page out on swap: a value entry, mm/shmem_swap.c). */
struct page *filemap_get_folio(struct address_space *mapping, unsigned long index);
/* Puts page at index: the mapping takes a reference of its own. 0,
 * -EEXIST or -ENOMEM (the xarray's nodes, allocated with gfp's reclaim
 * bits, Linux's gfp & GFP_RECLAIM_MASK). */
int __filemap_add_folio(struct address_space *mapping, struct page *page, unsigned long index, gfp_t gfp);
/* The same for the nr pages from page (a huge page: mm/shmem_huge.c) at
 * indices [index, index + nr): each index holds a reference of its own
 * (the head's) and each page its mapping and index; -EEXIST when any of
 * them holds a page already, and nothing added. */
int filemap_add_folio_range(struct address_space *mapping, struct page *page, unsigned long index,
			    unsigned long nr, gfp_t gfp);
/* Linux's split_folio for a page-cache folio: the 2^order pages from
 * head (at head->index on, every index present), mapped nowhere and held
 * by nothing but their indices, become pages of their own, each with its
 * index's reference. 0, or -EBUSY and nothing changed (a mapping, a
 * lookup or a pin holds a reference). */
int filemap_split_folio(struct address_space *mapping, struct page *head, unsigned int order);
/* The same for a huge page reclaim holds isolated (Linux's
 * split_folio_to_list from shrink_folio_list): the count must be every
 * index's reference and the isolation's; the 2^order - 1 tail pages go
 * to the tail of list, isolated (a reference of the list's each, the
 * head's LRU flags), head keeps the isolation's. 0 or -EBUSY. */
int filemap_split_folio_isolated(struct address_space *mapping, struct page *head, unsigned int order,
				 struct list_head *list);
/* Takes page out of its mapping, dropping the mapping's reference; false
 * when it was not there (taken out by another meanwhile, its mapping
 * NULL then). */
bool filemap_remove_folio(struct page *page);
/* Linux's migrate_folio for a page-cache page (folio_migrate_mapping, then
 * folio_migrate_copy, here under the one lock): new (a free page of
 * 2^order pages: 0, or a hugetlb page's) takes old's place at its index,
 * with old's contents, if old is still there,
 * mapped nowhere and held by nobody but the page cache and extra_count
 * references of the caller's; the page cache's reference moves from old
 * to new (the caller keeps its own on both). 0, or -EAGAIN and nothing
 * changed. */
int filemap_migrate_folio(struct address_space *mapping, struct page *new, struct page *old, int extra_count,
			  unsigned int order);

/* Reaching a page's mapping from the page alone (compaction's
 * migration of a page-cache page it isolated from the LRU: Linux's
 * folio_mapping under the folio lock, which keeps a truncate, and so
 * the inode's end, waiting). mmlab has no folio lock and frees an inode
 * at once, so these three keep the address_space alive instead:
 * page_mapping_get returns page's mapping (NULL: not in a page cache,
 * or taken out by a truncate) and, with one, holds every address_space
 * from being freed until page_mapping_put; mapping_free_barrier, called
 * by iput between an inode's eviction (which empties its page cache)
 * and its free, waits until no one holds them. The holder may sleep,
 * and takes no lock that an inode's last iput is called under. */
struct address_space *page_mapping_get(struct page *page);
void page_mapping_put(void);
void mapping_free_barrier(void);

/* Every page from byte lstart (rounded up to a page) on goes; the
 * partial page before it is the file system's to zero. */
unsigned long truncate_inode_pages(struct address_space *mapping, long lstart);
/* The pages wholly inside bytes [lstart, lend] go (a hole punched);
 * partial pages at either end are the file system's to zero. */
unsigned long truncate_inode_pages_range(struct address_space *mapping, long lstart, long lend);
/* The first index >= index with a page (data) or without one (hole),
 * below end; end if none. */
unsigned long filemap_next_index(struct address_space *mapping, unsigned long index, unsigned long end,
				 bool data);
/* Linux's filemap_read: up to count bytes of the file from *pos (its
 * i_size the end; holes read as zeros) into dst (user memory if user),
 * *pos moved on. Bytes copied, or -EFAULT when none could be. */
long filemap_read(struct file *f, char *dst, size_t count, long *pos, bool user);
/* The same, each page found by get_folio (tmpfs's brings a page back
 * from swap: mm/shmem_swap.c). */
long filemap_read_by(struct file *f, char *dst, size_t count, long *pos, bool user,
		     struct page *(*get_folio)(struct address_space *mapping, unsigned long index));
/* Whether the page at index lies (at least in part) below the file's
 * i_size: a fault at index past it is SIGBUS (Linux's check in
 * filemap_fault and shmem_fault). */
bool filemap_index_in_size(struct inode *inode, unsigned long index);
/* The first page at an index in [*index, last], with a reference of the
 * caller's, *index set to its index; NULL when none (Linux's
 * first_map_page/next_map_page walk of the xarray for fault-around). */
struct page *filemap_get_next_folio(struct address_space *mapping, unsigned long *index, unsigned long last);
/* Pages in every page cache (/proc/meminfo's Cached, with Shmem's). */
unsigned long nr_file_pages(void);
/* nr pages entered (or left, nr < 0) a page cache other than through
 * __filemap_add_folio and filemap_remove_folio: a collapse's holes
 * (mm/khugepaged_file.c), Linux's __mod_lruvec_page_state(NR_FILE_PAGES). */
void filemap_account_file_pages(long nr);

#endif
