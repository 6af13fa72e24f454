/* What mm/migrate.c, mm/migrate_shmem.c and mm/migrate_entry.c share:
 * the state of one migration of a page that several mappings may map,
 * and the PTE helpers of its reverse-map walks (mm/migrate_entry.c). */
#ifndef MM_MIGRATE_INTERNAL_H
#define MM_MIGRATE_INTERNAL_H

#include "kernel/spinlock.h"
#include "mm/pgtable.h"

struct mm_struct;
struct page;
struct vm_area_struct;

/* What one migration of a shared page holds: the mms whose mmap_lock it
 * took for reading (so none of them can fork, mremap, mprotect, unmap or
 * exit meanwhile: only faults, MADV_DONTNEED and readers run beside it,
 * and they know migration entries), how many entries it turned into
 * migration entries, and whether one mapping could not be reached. */
#define MIGRATE_MAX_MMS 64
struct shared_migration {
	struct page *old, *new;
	struct mm_struct *caller; /* its mmap_lock is the caller's */
	struct mm_struct *locked[MIGRATE_MAX_MMS];
	int nr_locked;
	bool busy;
	bool shmem; /* a shmem page: its map count and RssShmem (mm/migrate_shmem.c) */
};

/* Whether the migration holds mm's mmap_lock (the caller's, or one it
 * took); hold_mm takes it with a trylock if not (the walks take it in the
 * reverse of everyone else's order): false when it cannot, and the page
 * is then busy. */
bool mm_held(const struct shared_migration *sm, struct mm_struct *mm);
bool hold_mm(struct shared_migration *sm, struct mm_struct *mm);
/* The PTE of vma at address, locked, with a table reference (refcount
 * mode); NULL when there is none (or a huge PMD maps it). */
pte_t *lock_pte_at(struct vm_area_struct *vma, unsigned long address, pmd_t **pmdp, spinlock_t **ptlp);
void unlock_pte_at(struct vm_area_struct *vma, unsigned long address, pmd_t *pmd, pte_t *pte, spinlock_t *ptl);
/* The two passes over the mappings of sm->old (arg, a struct
 * shared_migration; page is sm->old): try_to_migrate_one turns the entry
 * of vma at address into a migration entry (false: an mm out of reach,
 * sm->busy), remove_migration_pte maps sm->new there again. rmap_one of
 * a struct rmap_walk_control. */
bool try_to_migrate_one(struct page *page, struct vm_area_struct *vma, unsigned long address, void *arg);
bool remove_migration_pte(struct page *page, struct vm_area_struct *vma, unsigned long address, void *arg);

/* The end of a move, after remove_migration_pte has been everywhere:
 * the mms hold_mm took are let go, and the faults sleeping on migration
 * entries (migration_entry_wait) wake to look again. */
void migration_done(struct shared_migration *sm);

/* mm/migrate_shmem.c: old, a 4 KiB page of the shmem object vma maps at
 * addr (with the caller's reference, which goes here), moves to new
 * (used or freed): Linux's migrate_pages for a shmem folio
 * (migrate_folio_unmap, migrate_folio: folio_migrate_mapping and the
 * copy, remove_migration_ptes). The node it is on after the call, or
 * -EBUSY. The caller holds its mm's mmap_lock for reading and has
 * checked MPOL_MF_MOVE_ALL against the map count. */
int migrate_shmem_page(struct vm_area_struct *vma, unsigned long addr, struct page *old, struct page *new);

/* mm/migrate_shmem.c: migrate_isolated_page for a page of a page cache
 * (a tmpfs file's, a shmem object's: old isolated from the LRU, 4 KiB),
 * mapped or not, by any number of processes' shared mappings: 0, old
 * freed and new in its place in the cache, on the LRU and in every
 * mapping; -EAGAIN (held: a mapping out of reach, a reference beyond the
 * cache's and the mappings', a private mapping of the file) or -EBUSY
 * (out of the cache meanwhile; a file system that moves its own pages),
 * old still isolated and new still the caller's. */
int migrate_isolated_shmem_page(struct page *old, struct page *new);

/* mm/migrate_hugetlb.c: the hugetlb page vma maps at addr moves whole to
 * a free page of the pool on *target (NULL: where vma's policy says),
 * every mapping of it and its page-cache place with it (Linux's
 * unmap_and_move_huge_page). The node it is on after the call, or
 * -ENOENT (not mapped), -EACCES (mapped more than once, without
 * MPOL_MF_MOVE_ALL in flags), -ENOMEM (no free page beyond the
 * reservations there), -EBUSY (held). The caller
 * holds its mm's mmap_lock for reading. */
int migrate_hugetlb_page(struct vm_area_struct *vma, unsigned long addr, const int *target, unsigned int flags);

#endif
