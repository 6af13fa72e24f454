/* Spinlock debugging reports and the boot-time choice of how to wait (see
 * spinlock.h). */
#include "kernel/spinlock.h"
#include "arch/x86_64/traps.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "lib/string.h"

bool spinlock_debug = true;
unsigned long spinlock_bugs;
kernel_param_flag("spinlock_debug", spinlock_debug,
		  "report spinlock recursion and unlocking a lock that is not held");

bool virt_spin_lock_key;
/* spinlock=: an index into spinlock_words. */
enum { SPINLOCK_TICKET, SPINLOCK_TAS, SPINLOCK_AUTO };
static const char *const spinlock_words[] = { "ticket", "tas", "auto" };
static int spinlock_choice = SPINLOCK_AUTO;

static int setup_spinlock(const char *val)
{
	for (int i = 0; val && i < 3; i++)
		if (!strcmp(val, spinlock_words[i])) {
			spinlock_choice = i;
			return 0;
		}
	return -EINVAL;
}

static void show_spinlock(char *buf, size_t size)
{
	snprintf(buf, size, "%s", spinlock_option());
}
kernel_param_setup("spinlock", setup_spinlock, show_spinlock, "ticket, tas or auto",
		   "how spinlock waiters wait: ticket (fair), tas (test-and-set, Linux's "
		   "virt_spin_lock), auto (tas under a hypervisor)");

const char *spinlock_option(void)
{
	return spinlock_words[spinlock_choice];
}

const char *spinlock_init_mode(bool hypervisor)
{
	switch (spinlock_choice) {
	case SPINLOCK_TICKET:
		virt_spin_lock_key = false;
		return "ticket (spinlock=ticket)";
	case SPINLOCK_TAS:
		virt_spin_lock_key = true;
		return "test-and-set (spinlock=tas)";
	}
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
