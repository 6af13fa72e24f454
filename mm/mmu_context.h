/* An address space's life and where it is loaded: mm_alloc/mmput (Linux's
 * kernel/fork.c), switch_mm (the CR3 switch) and kthread_use_mm (Linux's
 * kernel/kthread.c), and the TLB flush of an mm's range on every CPU that
 * may have it loaded.
 *
 * Invariants: an mm's PGD has its kernel half (entries 256..511) copied
 * from swapper_pg_dir at mm_alloc, and those entries never change (memory_init
 * makes them all at boot); mm_cpumask(mm) holds every CPU that has loaded
 * the mm since it was made (bits are never cleared, so a flush may reach
 * a CPU that no longer needs it, never miss one that does).
 * A flush (flush_tlb_user_range) reaches every CPU whose bit is set and
 * whose CR3 holds the mm at the time; a CPU running several threads of the
 * mm (or a kthread_use_mm user) flushes once. A CPU that has another mm
 * (or none) loaded skips it, and cannot miss it: switch_mm sets the bit
 * before it writes CR3 (a locked operation, ordered against the flusher's
 * fence), and the CR3 write drops every non-global translation (no PCIDs),
 * so a CPU coming back to the mm walks the tables as they are then.
 * Locking: mm_users is atomic; switch_mm runs with the caller's interrupts
 * as they are (kthread_use_mm turns them off around it); the count of live
 * user mms changes under its own spinlock, which
 * hold_off_new_user_mms_if_none() keeps held while the pte_reclaim mode
 * changes. */
#ifndef MM_MMU_CONTEXT_H
#define MM_MMU_CONTEXT_H

#include "arch/x86_64/tlb.h"
#include "mm/mm_types.h"

/* Allocates an mm with an empty user half (kernel half copied); NULL when
 * memory is short. mmput() drops a user: the last one unmaps everything,
 * frees the page tables and the PGD, and frees the mm. */
struct mm_struct *mm_alloc(void);
void mmput(struct mm_struct *mm);
/* Linux's two counts (include/linux/sched/mm.h): mm_users keeps the
 * address space (its VMAs, pages and tables), mm_count only the struct.
 * The users together hold one mm_count, dropped by the last mmput after
 * the teardown. mmgrab/mmdrop take and drop a reference to the struct
 * alone (a /proc/<pid>/mem file holds one from its open, as Linux's:
 * the process's memory still goes when it exits); mmget_not_zero turns
 * such a reference into a user one for a while, false once the address
 * space has gone. */
static inline void mmgrab(struct mm_struct *mm) { __atomic_add_fetch(&mm->mm_count, 1, __ATOMIC_RELAXED); }
/* Another user of an address space its caller holds one of already. */
static inline void mmget(struct mm_struct *mm) { __atomic_add_fetch(&mm->mm_users, 1, __ATOMIC_RELAXED); }
void mmdrop(struct mm_struct *mm);
static inline bool mmget_not_zero(struct mm_struct *mm)
{
	int users = __atomic_load_n(&mm->mm_users, __ATOMIC_RELAXED);
	do {
		if (!users)
			return false;
	} while (!__atomic_compare_exchange_n(&mm->mm_users, &users, users + 1, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return true;
}
/* A new address space for a process made by fork (Linux's dup_mm +
 * dup_mmap): a copy of oldmm's VMAs, their policies and layout, with the
 * private anonymous pages shared copy-on-write. 0 with *newp set (one
 * user), or -ENOMEM (nothing left behind) or -EINTR (the caller is being
 * killed). The caller holds a reference on oldmm and is its user. */
int dup_mm(struct mm_struct *oldmm, struct mm_struct **newp);
/* The user address spaces alive: made by mm_alloc, not yet freed by their
 * last mmput (a process's, or one a test or kthread built). */
long nr_live_user_mms(void);
/* For what may change only while no user mm exists (the pte_reclaim mode):
 * true when none is alive, and then mm_alloc waits until
 * allow_new_user_mms(); false (nothing held) otherwise. A spinlock: the
 * caller does not sleep in between. */
bool hold_off_new_user_mms_if_none(void);
void allow_new_user_mms(void);

/* Activates mm on this CPU (CR3, mm_cpumask); NULL: the kernel's tables.
 * For the scheduler and for tests that build an mm themselves. */
void switch_mm(struct mm_struct *prev, struct mm_struct *next);
/* A kernel thread works on a user address space (Linux's kthread_use_mm):
 * its faults, user copies and system calls go to mm until
 * kthread_unuse_mm(). The thread must have no mm of its own, and the
 * caller keeps mm alive meanwhile. Tests use them on mms they built. */
void kthread_use_mm(struct mm_struct *mm);
void kthread_unuse_mm(struct mm_struct *mm);

/* Flushes [start, end) of mm from the TLB of every CPU in mm_cpumask(mm)
 * that has it loaded (and from this CPU's). */
static inline void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	flush_tlb_user_range(mm_cpumask(mm), __pa(mm->pgd), start, end);
}

#endif
