/* The system-call table, built at boot from the .syscalls section (each
 * subsystem defines its calls with SYSCALL_DEFINEn beside its code), and
 * the dispatcher. A number nobody defined returns -ENOSYS, as Linux does
 * for numbers it lacks. */
#include "kernel/syscall.h"
#include "kernel/panic.h"
#include "kernel/printk.h"

extern const struct syscall_entry __syscalls_start[], __syscalls_end[];

static syscall_fn_t sys_call_table[NR_syscalls];
static const char *sys_call_names[NR_syscalls];
static unsigned long sys_call_count[NR_syscalls];
static unsigned long enosys_count;

void syscall_init(void)
{
	unsigned n = 0;
	for (const struct syscall_entry *e = __syscalls_start; e < __syscalls_end; e++, n++) {
		if (e->nr >= NR_syscalls)
			panic("BUG: system call %s has number %lu, beyond the table", e->name, e->nr);
		if (sys_call_table[e->nr])
			panic("BUG: system call %lu defined twice (%s and %s)", e->nr,
			      sys_call_names[e->nr], e->name);
		sys_call_table[e->nr] = e->fn;
		sys_call_names[e->nr] = e->name;
	}
	pr_info("syscall: %u system calls\n", n);
}

long do_syscall_64(unsigned long rax, const unsigned long args[6])
{
	/* Linux takes the number as a 32-bit int: the high half of rax is
	 * ignored (0x100000001 is write). */
	unsigned int nr = (unsigned int)rax;
	if (nr >= NR_syscalls || !sys_call_table[nr]) {
		__atomic_add_fetch(&enosys_count, 1, __ATOMIC_RELAXED);
		return -ENOSYS;
	}
	__atomic_add_fetch(&sys_call_count[nr], 1, __ATOMIC_RELAXED);
	return sys_call_table[nr](args);
}

const char *syscall_name(unsigned long nr)
{
	return nr < NR_syscalls ? sys_call_names[nr] : NULL;
}
