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
/* --- kvmalloc --- */
/* Linux's kvmalloc family (mm/util.c, include/linux/slab.h), with the seed
 * series' semantics (009, "mm: allow !GFP_KERNEL allocations for
 * kvmalloc", Linux 5.17) and the newest Linux's handling of non-blocking
 * flags: kmalloc first (above a page with __GFP_NOWARN, __GFP_NORETRY
 * unless __GFP_RETRY_MAYFAIL, and never __GFP_NOFAIL), then vmalloc with
 * the caller's flags, GFP_NOFS and GFP_NOIO included; sizes above INT_MAX
 * are refused with a warning. Free with kvfree, from any context. */
#include "mm/gfp.h"

#define KVMALLOC_MAX_SIZE 0x7ffffffful /* INT_MAX */

void *kvmalloc_node(size_t size, gfp_t flags, int node);
void *kvmalloc(size_t size, gfp_t flags);
void *kvzalloc(size_t size, gfp_t flags);
void *kvzalloc_node(size_t size, gfp_t flags, int node);
/* n * size, or NULL when that overflows. */
void *kvmalloc_array(size_t n, size_t size, gfp_t flags);
void *kvcalloc(size_t n, size_t size, gfp_t flags);
/* Linux 6.12's kvrealloc(p, size, flags): p NULL is kvmalloc; size 0 frees
 * p; the contents up to the smaller size are kept; p is freed only on
 * success. */
void *kvrealloc(const void *p, size_t size, gfp_t flags);
void kvfree(const void *addr);

/* What kvmalloc did, for tests: allocations served by kmalloc and by the
 * vmalloc fallback. */
extern unsigned long kvmalloc_kmalloc_count, kvmalloc_vmalloc_count;

#endif
