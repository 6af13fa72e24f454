/* Unmapping a file's pages from every process that maps them (Linux's
 * unmap_mapping_range, mm/memory.c there) and the truncation of the page
 * cache that needs it (Linux's truncate_pagecache, mm/truncate.c).
 *
 * A walk of the file's i_mmap (mm/interval_tree.h) under i_mmap_rwsem
 * for reading: each VMA that maps an offset of the range has those
 * addresses zapped (mm/teardown.c's zap, its mmu_gather: the TLBs of the
 * VMA's mm are flushed before a page's mapping reference is dropped).
 * Every page of a shared mapping, and the page-cache pages a private
 * mapping maps read-only (mm/filemap_fault.c); a private mapping's own
 * anonymous copies only with even_cows (Linux's zap_details.even_cows,
 * should_zap_page): truncate takes them past the end, a hole punched
 * leaves them, so the process keeps what it wrote and sees the hole
 * where it had only read.
 *
 * Locking: i_mmap_rwsem (read) -> the PTE locks; no mmap_lock, so that
 * truncate (under i_rwsem) needs no lock of the processes mapping the
 * file. Order: i_rwsem -> i_mmap_rwsem. A fault racing the truncate
 * maps its page only if the page is still the file's at that offset and
 * below i_size, checked under the PTE lock (mm/memory.c): truncate
 * removes the page (or shrinks i_size) before its second unmap, so a
 * fault either installs before that unmap takes the PTE lock (and is
 * zapped) or sees the page gone. */
#ifndef MM_TRUNCATE_H
#define MM_TRUNCATE_H

#include "kernel/rwsem.h"
#include "lib/rbtree.h"

struct address_space;
struct inode;

/* Linux's unmap_mapping_pages: the offsets [start, start + nr) (nr 0: to
 * the end) of every VMA mapping the file; private mappings' anonymous
 * copies too with even_cows. */
void unmap_mapping_pages(struct address_space *mapping, unsigned long start, unsigned long nr, bool even_cows);
/* The same for reclaim (Linux's try_to_unmap of a file folio, whose
 * rmap walk only tries the i_mmap lock): the file pages at [start,
 * start + nr) unmapped from every VMA, anonymous copies left; false,
 * nothing done, when the lock is busy. */
bool try_unmap_mapping_pages(struct address_space *mapping, unsigned long start, unsigned long nr);
/* Linux's unmap_mapping_range: the same in bytes, holelen rounded up to
 * whole pages (0: to the end). */
void unmap_mapping_range(struct address_space *mapping, long holebegin, long holelen, bool even_cows);
/* Linux's truncate_pagecache: i_size already newsize (i_rwsem held for
 * writing), every mapping of the pages past it unmapped, private copies
 * included, the pages dropped from the cache, and unmapped again (a
 * private copy a fault made meanwhile). The partial page at newsize stays
 * (its tail is the file system's to zero). Returns the pages it took out
 * of the cache (Linux's returns nothing; tmpfs counts its blocks by it,
 * exact beside a fault that adds a page meanwhile). */
unsigned long truncate_pagecache(struct inode *inode, long newsize);
/* Linux's truncate_pagecache_range for a hole [lstart, lend]: the pages
 * wholly inside it unmapped from shared mappings and dropped (and
 * unmapped again, for a fault that found one before it went). */
unsigned long truncate_pagecache_range(struct inode *inode, long lstart, long lend);

#endif
