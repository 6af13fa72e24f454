/* Spinlock debugging reports and the boot-time choice of how to wait (see
 * spinlock.h). */
#include "kernel/spinlock.h"
#include "arch/x86_64/traps.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"

bool spinlock_debug = true;
unsigned long spinlock_bugs;
kernel_param_flag("spinlock_debug", spinlock_debug,
		  "report spinlock recursion and unlocking a lock that is not held");

bool virt_spin_lock_key;
static char spinlock_mode[8] = "auto";
kernel_param_string("spinlock", spinlock_mode,
		    "how spinlock waiters wait: ticket (fair), tas (test-and-set, Linux's "
		    "virt_spin_lock), auto (tas under a hypervisor)");

const char *spinlock_init_mode(bool hypervisor)
{
	if (!strcmp(spinlock_mode, "ticket")) {
		virt_spin_lock_key = false;
		return "ticket (spinlock=ticket)";
	}
	if (!strcmp(spinlock_mode, "tas")) {
		virt_spin_lock_key = true;
		return "test-and-set (spinlock=tas)";
	}
	if (strcmp(spinlock_mode, "auto"))
		pr_err("cmdline: bad value '%s' for 'spinlock' (expected ticket, tas or auto); "
		       "keeping auto\n", spinlock_mode);
	virt_spin_lock_key = hypervisor;
	return hypervisor ? "test-and-set (a hypervisor: CPUID's hypervisor bit)"
			  : "ticket (no hypervisor bit in CPUID)";
}

void spin_bug(spinlock_t *l, const char *msg)
{
	__atomic_fetch_add(&spinlock_bugs, 1, __ATOMIC_RELAXED);
	printk(KERN_ERR "BUG: spinlock %s: lock %p on CPU %u (held by CPU %d, tickets %u/%u)\n", msg,
	       (void *)l, smp_processor_id(), (int)l->owner_cpu - 1, l->next, l->owner);
	show_backtrace((u64)(uintptr_t)__builtin_return_address(0),
		       (u64)(uintptr_t)__builtin_frame_address(0));
}
