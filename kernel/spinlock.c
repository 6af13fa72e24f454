/* Spinlock debugging reports (see spinlock.h). */
#include "kernel/spinlock.h"
#include "arch/x86_64/traps.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"

bool spinlock_debug = true;
unsigned long spinlock_bugs;
kernel_param_flag("spinlock_debug", spinlock_debug,
		  "report spinlock recursion and unlocking a lock that is not held");

void spin_bug(spinlock_t *l, const char *msg)
{
	__atomic_fetch_add(&spinlock_bugs, 1, __ATOMIC_RELAXED);
	printk(KERN_ERR "BUG: spinlock %s: lock %p on CPU %u (held by CPU %d, tickets %u/%u)\n", msg,
	       (void *)l, smp_processor_id(), (int)l->owner_cpu - 1, l->next, l->owner);
	show_backtrace((u64)(uintptr_t)__builtin_return_address(0),
		       (u64)(uintptr_t)__builtin_frame_address(0));
}
