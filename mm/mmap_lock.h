/* The mmap lock of an mm (Linux's include/linux/mmap_lock.h): a
 * read-write semaphore (kernel/rwsem.h) that protects the VMA tree and
 * what hangs off it. Which operations take it how, and what it protects,
 * is written at the top of mm/mm_types.h ("Locking").
 *
 * Readers: page faults (mm/fault.c), populate (MAP_POPULATE after the
 * mmap downgraded, MADV_POPULATE_*), madvise advice that only zaps or
 * does nothing to the VMAs (Linux's madvise_need_mmap_write() == 0), the
 * procfs readers. Writers: mmap, munmap, mprotect, brk, madvise advice
 * that changes vm_flags, exit_mmap. */
#ifndef MM_MMAP_LOCK_H
#define MM_MMAP_LOCK_H

#include "kernel/printk.h"
#include "kernel/rwsem.h"
#include "mm/mm_types.h"

static inline void mmap_init_lock(struct mm_struct *mm) { init_rwsem(&mm->mmap_lock); }

static inline void mmap_write_lock(struct mm_struct *mm) { down_write(&mm->mmap_lock); }
static inline bool mmap_write_trylock(struct mm_struct *mm) { return down_write_trylock(&mm->mmap_lock); }
static inline void mmap_write_unlock(struct mm_struct *mm) { up_write(&mm->mmap_lock); }
/* A writer that is done changing the VMAs but still needs them stable
 * (MAP_POPULATE) lets the faults of other threads in. */
static inline void mmap_write_downgrade(struct mm_struct *mm) { downgrade_write(&mm->mmap_lock); }

static inline void mmap_read_lock(struct mm_struct *mm) { down_read(&mm->mmap_lock); }
static inline bool mmap_read_trylock(struct mm_struct *mm) { return down_read_trylock(&mm->mmap_lock); }
static inline void mmap_read_unlock(struct mm_struct *mm) { up_read(&mm->mmap_lock); }

/* Debug assertions (Linux's mmap_assert_locked/mmap_assert_write_locked,
 * without lockdep: held by someone, held for writing by someone). A
 * failure is reported and counted in rwsem_bugs; the caller goes on. */
#define mmap_assert_locked(mm)                                                                 \
	do {                                                                                   \
		if (unlikely(!rwsem_is_locked(&(mm)->mmap_lock))) {                            \
			__atomic_fetch_add(&rwsem_bugs, 1, __ATOMIC_RELAXED);                  \
			pr_err("BUG: %s: mmap_lock of mm %p not held\n", __func__, (void *)(mm)); \
		}                                                                              \
	} while (0)
#define mmap_assert_write_locked(mm)                                                           \
	do {                                                                                   \
		if (unlikely(!rwsem_is_write_locked(&(mm)->mmap_lock))) {                      \
			__atomic_fetch_add(&rwsem_bugs, 1, __ATOMIC_RELAXED);                  \
			pr_err("BUG: %s: mmap_lock of mm %p not held for writing\n", __func__,  \
			       (void *)(mm));                                                  \
		}                                                                              \
	} while (0)

#endif
