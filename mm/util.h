/* Memory accounting for private writable mappings (Linux's overcommit:
 * mm/util.c __vm_enough_memory, vm_acct_memory, vm_unacct_memory) and, with
 * the vmalloc issue, kvmalloc.
 *
 * A mapping with VM_ACCOUNT is charged its pages when it is created or
 * grows (mmap, brk, mremap, mprotect making it writable) and uncharged
 * when it shrinks or goes (munmap, exit, mremap).
 *
 * PROVISIONAL skeleton: the policy (vm.overcommit_memory 0/1/2,
 * overcommit_ratio/kbytes, CommitLimit, Committed_AS) comes with issue 15;
 * until then every charge succeeds and is counted. */
#ifndef MM_UTIL_H
#define MM_UTIL_H

#include "kernel/types.h"

struct mm_struct;

/* Charges pages to the commit count if the overcommit policy allows it:
 * 0, or -ENOMEM (nothing charged). Linux's security_vm_enough_memory_mm. */
int security_vm_enough_memory_mm(struct mm_struct *mm, long pages);
/* Adds or removes pages from the commit count without a check. */
void vm_acct_memory(long pages);
void vm_unacct_memory(long pages);
/* The commit count in pages (Committed_AS). */
unsigned long vm_memory_committed(void);

#endif
