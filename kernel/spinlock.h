/* Ticket spinlocks: fair (first come, first served), built on GCC's __atomic
 * builtins, so the same code runs in the kernel and in host-side tests.
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
	u16 next;      /* the ticket the next locker takes */
	u16 owner;     /* the ticket being served */
	u16 owner_cpu; /* holder's CPU + 1; 0 when free */
	u16 recursion; /* recursive acquisitions skipped (debug) */
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED { 0, 0, 0, 0 }
#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED

extern bool spinlock_debug;
extern unsigned long spinlock_bugs;
void spin_bug(spinlock_t *l, const char *msg);

static inline void spin_lock_init(spinlock_t *l)
{
	l->next = l->owner = 0;
	l->owner_cpu = l->recursion = 0;
}

static inline void spin_lock(spinlock_t *l)
{
	u16 self = (u16)(smp_processor_id() + 1);
	if (unlikely(spinlock_debug && __atomic_load_n(&l->owner_cpu, __ATOMIC_RELAXED) == self)) {
		spin_bug(l, "recursion: this CPU already holds it");
		l->recursion++;
		return;
	}
	u16 me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		__builtin_ia32_pause();
	__atomic_store_n(&l->owner_cpu, self, __ATOMIC_RELAXED);
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
	__atomic_store_n(&l->owner, (u16)(l->owner + 1), __ATOMIC_RELEASE);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
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
