/* Memory accounting for private writable mappings: Linux's overcommit
 * (mm/util.c __vm_enough_memory, vm_commit_limit, vm_acct_memory,
 * vm_unacct_memory; the vm.overcommit_* sysctls) and, with vmalloc's GFP
 * flags (docs/vmalloc.md), kvmalloc.
 *
 * A mapping with VM_ACCOUNT is charged its pages when it is created or
 * grows (mmap, brk, mremap, mprotect making it writable) and uncharged
 * when it shrinks or goes (munmap_range, exit_mmap, mprotect taking write
 * access from a never-faulted VMA, mremap). Committed_AS is the sum.
 *
 * The policy (vm.overcommit_memory):
 *   OVERCOMMIT_GUESS (0, the default) refuses one request larger than
 *     total RAM plus swap (the rule of Linux 6.x's __vm_enough_memory; swap: mm/swapfile.c);
 *   OVERCOMMIT_ALWAYS (1) never refuses;
 *   OVERCOMMIT_NEVER (2) refuses when Committed_AS would reach CommitLimit
 *     = (RAM - hugetlb) * overcommit_ratio / 100 + swap, or
 *     overcommit_kbytes + swap when that is set, less min(total_vm / 32,
 *     user_reserve_kbytes) of the mm asking, less admin_reserve_kbytes
 *     for a caller without CAP_SYS_ADMIN. MAP_NORESERVE is ignored.
 *
 * Locking: the commit count is one atomic (Linux: a per-CPU counter); the
 * sysctls are words written whole, read once per decision. */
#ifndef MM_UTIL_H
#define MM_UTIL_H

#include "kernel/types.h"

struct mm_struct;
struct seq_buf;
struct proc_node;

/* include/uapi/linux/mman.h */
#define OVERCOMMIT_GUESS 0
#define OVERCOMMIT_ALWAYS 1
#define OVERCOMMIT_NEVER 2

extern int sysctl_overcommit_memory;
extern int sysctl_overcommit_ratio;
extern unsigned long sysctl_overcommit_kbytes;
extern unsigned long sysctl_user_reserve_kbytes;
extern unsigned long sysctl_admin_reserve_kbytes;

/* Charges pages to the commit count if the overcommit policy allows it:
 * 0, or -ENOMEM (nothing charged). Linux's security_vm_enough_memory_mm:
 * the admin reserve is the caller's only with CAP_SYS_ADMIN. */
int security_vm_enough_memory_mm(struct mm_struct *mm, long pages);
int __vm_enough_memory(struct mm_struct *mm, long pages, int cap_sys_admin);
/* Adds or removes pages from the commit count without a check. */
void vm_acct_memory(long pages);
void vm_unacct_memory(long pages);
/* The commit count in pages (Committed_AS). */
unsigned long vm_memory_committed(void);
/* CommitLimit in pages. */
unsigned long vm_commit_limit(void);


/* --- kvmalloc --- */
/* Linux's kvmalloc family (mm/util.c, include/linux/slab.h), with the
 * semantics of Michal Hocko's "mm: allow !GFP_KERNEL allocations for
 * kvmalloc" (2021-10-25, Linux 5.17 commit a421ef303008) and the newest Linux's handling of non-blocking
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
