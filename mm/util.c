/* PROVISIONAL skeleton of the commit accounting (see mm/util.h). */
#include "mm/util.h"

static long vm_committed_as;

int security_vm_enough_memory_mm(struct mm_struct *mm, long pages)
{
	(void)mm;
	vm_acct_memory(pages);
	return 0;
}

void vm_acct_memory(long pages)
{
	__atomic_add_fetch(&vm_committed_as, pages, __ATOMIC_RELAXED);
}

void vm_unacct_memory(long pages)
{
	vm_acct_memory(-pages);
}

unsigned long vm_memory_committed(void)
{
	long v = __atomic_load_n(&vm_committed_as, __ATOMIC_RELAXED);
	return v < 0 ? 0 : (unsigned long)v;
}
