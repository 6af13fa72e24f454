/* Moving user pages between nodes (mm/migrate.c; a shmem page through
 * mm/migrate_shmem.c): what move_pages(2), migrate_pages(2) and mbind's
 * MPOL_MF_MOVE use. The caller holds the mmap lock (for reading at
 * least). */
#ifndef MM_MIGRATE_H
#define MM_MIGRATE_H

#include "kernel/types.h"
#include "mm/pgtable.h"

struct mm_struct;
struct vm_area_struct;
struct page;

/* Linux's migration_entry_wait (mm/migrate_entry.c): a fault that found
 * entry, a migration entry, at address of the PTE table below pmd sleeps
 * until that entry has changed (the move put a page back, or a zap took
 * it), then returns to fault again. The caller holds the mmap_lock for
 * reading and keeps the table (a fault's table reference in refcount
 * mode). */
void migration_entry_wait(pmd_t *pmd, unsigned long address, pte_t entry);

/* Linux's find_mm_struct: the mm of process pid (0: the caller's) with a
 * reference (mmput it), or NULL with *err -ESRCH (no such pid) or -EINVAL
 * (a kernel thread). Every mmlab process may act on any other. */
struct mm_struct *find_mm_struct(int pid, int *err);

/* The node of the page mapped at addr (page aligned) of vma, or -ENOENT
 * (nothing mapped) or -EFAULT (the zero page): move_pages' status. */
int anon_page_node(struct vm_area_struct *vma, unsigned long addr);
/* Moves the page mapped at addr to new (a free page on the target node,
 * which this call uses or frees). A page other processes map too (since
 * a fork) moves only with MPOL_MF_MOVE_ALL in flags, every mapping of it
 * through the reverse map (-EACCES without). A shmem page (a MAP_SHARED
 * mapping's: an anonymous object's, a segment's, a tmpfs file's) moves
 * the same way through the i_mmap of its object's file, and takes the old
 * page's place in the file's page cache (migrate_shmem_page). Returns the node the page is
 * on after the call, or -ENOENT, -EFAULT (as anon_page_node), -EACCES,
 * -EBUSY (pinned by get_user_pages, another process's mapping out of
 * reach, or the entry changed meanwhile). */
int migrate_anon_page(struct vm_area_struct *vma, unsigned long addr, struct page *new, unsigned int flags);
/* The page (or the THP whole) at addr moved to node nid only
 * (migrate_anon_at with alloc_migration_target): -ENOMEM when it has no
 * page; a THP is split, and the 4 KiB page at addr moved, when nid has no
 * free 2 MiB. */
int migrate_anon_page_to_node(struct vm_area_struct *vma, unsigned long addr, int nid);

/* Where a migration's new page comes from: 2^order pages (0, or 9 for a
 * THP) for addr of vma; NULL when there are none. */
typedef struct page *(*migrate_alloc_t)(struct vm_area_struct *vma, unsigned long addr, unsigned order,
					void *arg);
/* Moves the anonymous page at addr to a page alloc gives: a THP whole
 * (an order-9 page), or, when alloc has no order-9 page, the THP split
 * (*split set: the other 511 pages stay, for the caller to walk again)
 * and the 4 KiB page at addr moved. Returns the node it is on now, or a
 * negative errno (-ENOENT nothing there, -EFAULT the zero page, -EBUSY
 * pinned, -EACCES shared without MPOL_MF_MOVE_ALL in flags, -ENOMEM). The
 * caller holds mmap_lock for reading. */
int migrate_anon_at(struct vm_area_struct *vma, unsigned long addr, migrate_alloc_t alloc, void *arg,
		    bool *split, unsigned int flags);
/* Linux's migrate_pages for one page compaction isolated (mm/compaction.c):
 * old, a 4 KiB anonymous or page-cache (tmpfs, shmem) page off the LRU
 * with the isolation's reference (isolate_lru_page), moves to new (a page
 * taken from the free lists, reference count 1, nothing else set) with
 * every mapping of it, in every process that maps it (found through the
 * reverse map: the anon_vma, or the file's i_mmap; their mmap_locks taken
 * with a trylock); a page-cache page also takes old's place in the cache
 * (mm/migrate_shmem.c). 0: moved, old freed, new on the LRU in old's
 * place. Otherwise old stays (still isolated: the caller puts it back
 * with putback_lru_page) and new is still the caller's: -EBUSY for a page
 * this cannot move (neither anonymous nor in a page cache any more, part
 * of a THP or hugetlb page, a file system's that refuses), -EAGAIN when
 * the page was held (a get_user_pages reference, an mm out of reach, a
 * private mapping of the file). */
int migrate_isolated_page(struct page *old, struct page *new);
/* Linux's alloc_migration_target with the gfp of migrate_to_node and
 * do_move_pages_to_node: 2^order pages of node *(int *)arg only
 * (GFP_HIGHUSER_MOVABLE | __GFP_THISNODE; a THP GFP_TRANSHUGE). */
struct page *alloc_migration_target(struct vm_area_struct *vma, unsigned long addr, unsigned order, void *arg);

#endif
