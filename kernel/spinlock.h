/* Spinlocks, built on GCC's __atomic builtins, so the same code runs in the
 * kernel and in host-side tests. Two ways to wait, one lock word:
 *
 *  - ticket locks (fair, first come first served): each locker takes the
 *    next ticket and waits until it is served. The kernel's choice on bare
 *    metal.
 *  - test-and-set, Linux's virt_spin_lock() (arch/x86/include/asm/
 *    qspinlock.h): a waiter spins reading the lock and tries to take it
 *    whenever it looks free. Chosen when CPUID says a hypervisor runs us
 *    (spinlock=ticket|tas overrides): there "fair locks have horrible lock
 *    'holder' preemption issues". A ticket handed to a waiter whose vCPU
 *    the host is not running stalls every waiter behind it for the host's
 *    time slice; with test-and-set whichever vCPU runs takes the lock.
 *    Unfair, and a waiter can starve in theory: the price Linux pays too
 *    on a hypervisor without paravirtual spinlocks.
 *
 * Both use the same word (next, owner): free when next == owner; a ticket
 * locker adds to next and waits for owner to reach its ticket, a
 * test-and-set locker moves next from owner to owner + 1 in one
 * compare-and-exchange (the ticket lock's trylock). Unlock adds to owner
 * in both. So the choice, made once at boot (spinlock_init_mode), needs
 * no lock to be free when it is made.
 *
 * The irqsave variants disable interrupts on this CPU for as long as the
 * lock is held; use them for locks also taken from interrupt context.
 *
 * Every lock records which CPU holds it. With spinlock_debug on (the
 * default; spinlock_debug=off on the command line), taking a lock this CPU
 * already holds (which would deadlock) and releasing a lock this CPU does
 * not hold are reported as "BUG: spinlock ..." and survived: the recursive
 * acquisition and its matching release are skipped, the bad release is
 * ignored. */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "arch/x86_64/irqflags.h"
#include "kernel/smp.h"
#include "kernel/types.h"

typedef struct {
	union {
		u32 head_tail; /* both, for the test-and-set compare-and-exchange */
		struct {
			u16 next;  /* the ticket the next locker takes */
			u16 owner; /* the ticket being served */
		};
	};
	u16 owner_cpu; /* holder's CPU + 1; 0 when free */
	u16 recursion; /* recursive acquisitions skipped (debug) */
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED { { 0 }, 0, 0 }
#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED

extern bool spinlock_debug;
extern unsigned long spinlock_bugs;
void spin_bug(spinlock_t *l, const char *msg);

/* true: spin_lock is the test-and-set lock (Linux's virt_spin_lock_key). */
extern bool virt_spin_lock_key;
/* Chooses the way to wait from spinlock= and, for auto, from the CPUID
 * hypervisor bit (hypervisor: true if it is set); called once on the boot
 * CPU before any other CPU runs. Returns what it chose, for the report. */
const char *spinlock_init_mode(bool hypervisor);
/* What spinlock= asked for: "ticket", "tas" or "auto" (the default). */
const char *spinlock_option(void);

static inline void spin_lock_init(spinlock_t *l)
{
	l->head_tail = 0;
	l->owner_cpu = l->recursion = 0;
}

static inline bool spin_is_locked(spinlock_t *l)
{
	u32 v = __atomic_load_n(&l->head_tail, __ATOMIC_RELAXED);
	return (u16)v != (u16)(v >> 16);
}

/* Takes the lock if it is free, without waiting: (next, owner) from
 * (t, t) to (t + 1, t). next wraps within its own half. */
static inline bool arch_spin_trylock(spinlock_t *l)
{
	u32 old = __atomic_load_n(&l->head_tail, __ATOMIC_RELAXED);
	if ((u16)old != (u16)(old >> 16))
		return false;
	u32 new = (old & 0xffff0000u) | (u16)(old + 1);
	return __atomic_compare_exchange_n(&l->head_tail, &old, new, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* Only the holder writes owner, whichever way it took the lock. */
static inline void arch_spin_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->owner, (u16)(l->owner + 1), __ATOMIC_RELEASE);
}

/* The fair way: a ticket, then wait to be served. */
static inline void ticket_spin_lock(spinlock_t *l)
{
	u16 me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		__builtin_ia32_pause();
}

/* Linux's virt_spin_lock(): spin on a read until the lock looks free, then
 * try to take it (a read-only spin keeps the cache line shared). */
static inline void virt_spin_lock(spinlock_t *l)
{
	while (!arch_spin_trylock(l)) {
		while (spin_is_locked(l))
			__builtin_ia32_pause();
	}
}

static inline bool spin_lock_recursion(spinlock_t *l, u16 self)
{
	if (unlikely(spinlock_debug && __atomic_load_n(&l->owner_cpu, __ATOMIC_RELAXED) == self)) {
		spin_bug(l, "recursion: this CPU already holds it");
		l->recursion++;
		return true;
	}
	return false;
}

static inline void spin_lock(spinlock_t *l)
{
	u16 self = (u16)(smp_processor_id() + 1);
	if (spin_lock_recursion(l, self))
		return;
	if (virt_spin_lock_key)
		virt_spin_lock(l);
	else
		ticket_spin_lock(l);
	__atomic_store_n(&l->owner_cpu, self, __ATOMIC_RELAXED);
}

/* Linux's spin_trylock: 1 if taken. A lock this CPU holds is simply not
 * free (no recursion report: trying is not a deadlock). */
static inline int spin_trylock(spinlock_t *l)
{
	if (!arch_spin_trylock(l))
		return 0;
	__atomic_store_n(&l->owner_cpu, (u16)(smp_processor_id() + 1), __ATOMIC_RELAXED);
	return 1;
}

static inline void spin_unlock(spinlock_t *l)
{
	if (unlikely(spinlock_debug)) {
		if (l->recursion && l->owner_cpu == smp_processor_id() + 1) {
			l->recursion--;
			return;
		}
		if (__atomic_load_n(&l->owner_cpu, __ATOMIC_RELAXED) != smp_processor_id() + 1) {
			spin_bug(l, "unlock of a lock this CPU does not hold");
			return;
		}
	}
	__atomic_store_n(&l->owner_cpu, 0, __ATOMIC_RELAXED);
	arch_spin_unlock(l);
}

#define local_irq_save(flags) ((flags) = arch_local_irq_save())
#define local_irq_restore(flags) arch_local_irq_restore(flags)
#define spin_lock_irqsave(l, flags)                                                   \
	do {                                                                          \
		local_irq_save(flags);                                                \
		spin_lock(l);                                                         \
	} while (0)
#define spin_unlock_irqrestore(l, flags)                                              \
	do {                                                                          \
		spin_unlock(l);                                                       \
		local_irq_restore(flags);                                             \
	} while (0)

#endif
