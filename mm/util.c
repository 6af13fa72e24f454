/* Commit accounting and the overcommit policy (see mm/util.h), after
 * Linux's mm/util.c (__vm_enough_memory, vm_commit_limit), its sysctl
 * handlers (overcommit_policy_handler, overcommit_ratio_handler,
 * overcommit_kbytes_handler) and mm/mmap.c's init_user_reserve and
 * init_admin_reserve. */
#include "mm/util.h"
#include "kernel/cred.h"
#include "kernel/sysctl.h"
#include "kernel/init.h"
#include "kernel/printk.h"
#include "kernel/sysctl.h"
#include "lib/ratelimit.h"
#include "kernel/sched.h"
#include "lib/string.h"
#include "mm/mm_types.h"
#include "mm/hugetlb.h"
#include "mm/page_alloc.h"
#include "mm/vmscan.h"

int sysctl_overcommit_memory = OVERCOMMIT_GUESS;
int sysctl_overcommit_ratio = 50;
unsigned long sysctl_overcommit_kbytes;
/* Set at boot from the free memory (init_reserves below). */
unsigned long sysctl_user_reserve_kbytes = 1ul << 17;
unsigned long sysctl_admin_reserve_kbytes = 1ul << 13;

static long vm_committed_as;

/* total_swap_pages is mm/vmscan.h's (the areas that are on: mm/swapfile.c);
 * hugetlb_total_pages() is the pools' (mm/hugetlb.h). */

unsigned long vm_commit_limit(void)
{
	unsigned long allowed, kbytes = READ_ONCE(sysctl_overcommit_kbytes);
	if (kbytes)
		allowed = kbytes >> (PAGE_SHIFT - 10);
	else
		allowed = (totalram_pages() - hugetlb_total_pages()) *
			  (unsigned long)(long)READ_ONCE(sysctl_overcommit_ratio) / 100;
	return allowed + (unsigned long)total_swap_pages;
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

/* Linux's __vm_enough_memory: charge first, then decide, and take the
 * charge back on refusal, so that racing requests see each other. */
int __vm_enough_memory(struct mm_struct *mm, long pages, int cap_sys_admin)
{
	vm_acct_memory(pages);
	int mode = READ_ONCE(sysctl_overcommit_memory);
	if (mode == OVERCOMMIT_ALWAYS)
		return 0;
	if (mode == OVERCOMMIT_GUESS) {
		if (pages > (long)(totalram_pages() + (unsigned long)total_swap_pages))
			goto error;
		return 0;
	}
	long allowed = (long)vm_commit_limit();
	/* Reserve some for root. */
	if (!cap_sys_admin)
		allowed -= (long)(READ_ONCE(sysctl_admin_reserve_kbytes) >> (PAGE_SHIFT - 10));
	/* Don't let a single process grow so big a user can't recover. */
	if (mm) {
		long reserve = (long)(READ_ONCE(sysctl_user_reserve_kbytes) >> (PAGE_SHIFT - 10));
		allowed -= min((long)(mm->total_vm / 32), reserve);
	}
	if ((long)vm_memory_committed() < allowed)
		return 0;
error:
	pr_warn_ratelimited("__vm_enough_memory: pid: %d, comm: %s, bytes: %lu not enough memory "
			    "for the allocation\n", current ? current->pid : 0,
			    current ? current->comm : "?", (unsigned long)pages << PAGE_SHIFT);
	vm_unacct_memory(pages);
	return -ENOMEM;
}

int security_vm_enough_memory_mm(struct mm_struct *mm, long pages)
{
	/* cap_vm_enough_memory: the admin reserve is kept back from a
	 * caller without CAP_SYS_ADMIN. */
	return __vm_enough_memory(mm, pages, capable(CAP_SYS_ADMIN));
}

/* Linux's init_user_reserve/init_admin_reserve (subsys_initcall): 3% of
 * the free memory, at most 128 MiB and 8 MiB. */
static int init_reserves(void)
{
	unsigned long free_kbytes = nr_free_pages() << (PAGE_SHIFT - 10);
	sysctl_user_reserve_kbytes = min(free_kbytes / 32, 1ul << 17);
	sysctl_admin_reserve_kbytes = min(free_kbytes / 32, 1ul << 13);
	return 0;
}
late_initcall(init_reserves);

/* ---- /proc/sys/vm ---------------------------------------------------------- */

/* /proc/sys/vm/overcommit_{memory,ratio,kbytes}: overcommit_memory 0..2,
 * else -EINVAL (Linux's overcommit_policy_handler, proc_dointvec_minmax);
 * writing overcommit_ratio clears overcommit_kbytes and the other way
 * round, as Linux's overcommit_ratio_handler/overcommit_kbytes_handler. */
static int overcommit_ratio_handler(const struct ctl_table *table, bool write, struct seq_buf *m,
				    const char *buf, size_t len)
{
	int err = proc_dointvec(table, write, m, buf, len);
	if (!err && write)
		WRITE_ONCE(sysctl_overcommit_kbytes, 0);
	return err;
}

static int overcommit_kbytes_handler(const struct ctl_table *table, bool write, struct seq_buf *m,
				     const char *buf, size_t len)
{
	int err = proc_doulongvec_minmax(table, write, m, buf, len);
	if (!err && write)
		WRITE_ONCE(sysctl_overcommit_ratio, 0);
	return err;
}

SYSCTL_ENTRY(proc_sys_vm_dir, overcommit_memory, .data = &sysctl_overcommit_memory, .maxlen = sizeof(int),
	     .proc_handler = proc_dointvec_minmax, .extra1 = SYSCTL_ZERO, .extra2 = SYSCTL_TWO);
SYSCTL_ENTRY(proc_sys_vm_dir, overcommit_ratio, .data = &sysctl_overcommit_ratio, .maxlen = sizeof(int),
	     .proc_handler = overcommit_ratio_handler);
SYSCTL_ENTRY(proc_sys_vm_dir, overcommit_kbytes, .data = &sysctl_overcommit_kbytes,
	     .maxlen = sizeof(unsigned long), .proc_handler = overcommit_kbytes_handler);

/* vm.mmap_min_addr (Linux's security/min_addr.c): the lowest address a
 * mapping may have, page aligned when it is used. Writable, as Linux's for
 * a process with CAP_SYS_RAWIO (every mmlab process). */
unsigned long mmap_min_addr = DEFAULT_MMAP_MIN_ADDR;
SYSCTL_ENTRY(proc_sys_vm_dir, mmap_min_addr, .data = &mmap_min_addr, .maxlen = sizeof(unsigned long),
	     .proc_handler = proc_doulongvec_minmax);

/* --- kvmalloc --- */
/* Linux's mm/util.c kvmalloc_node and friends; see mm/util.h. */
#include "kernel/printk.h"
#include "lib/string.h"
#include "mm/slab.h"
#include "mm/vmalloc.h"

unsigned long kvmalloc_kmalloc_count, kvmalloc_vmalloc_count;

/* Linux's kmalloc_gfp_adjust: above a page, kmalloc is only a first try. */
static gfp_t kmalloc_gfp_adjust(gfp_t flags, size_t size)
{
	if (size > PAGE_SIZE) {
		flags |= __GFP_NOWARN;
		if (!(flags & __GFP_RETRY_MAYFAIL))
			flags |= __GFP_NORETRY;
		/* nofail semantic is implemented by the vmalloc fallback */
		flags &= ~__GFP_NOFAIL;
	}
	return flags;
}

void *kvmalloc_node(size_t size, gfp_t flags, int node)
{
	void *ret = kmalloc_node(size, kmalloc_gfp_adjust(flags, size), node);
	/* No vmalloc fallback for sub-page requests. */
	if (ret || size <= PAGE_SIZE) {
		if (ret && !ZERO_OR_NULL_PTR(ret))
			__atomic_add_fetch(&kvmalloc_kmalloc_count, 1, __ATOMIC_RELAXED);
		return ret;
	}
	/* Don't even allow crazy sizes. */
	if (size > KVMALLOC_MAX_SIZE) {
		if (!(flags & __GFP_NOWARN))
			pr_warn("kvmalloc: size %zu is above INT_MAX: refused\n", size);
		return NULL;
	}
	/* Michal Hocko's "mm: allow !GFP_KERNEL allocations for kvmalloc"
	 * (Linux 5.17, a421ef303008) removed "(flags & GFP_KERNEL) != GFP_KERNEL ->
	 * kmalloc only": GFP_NOFS and GFP_NOIO fall back to vmalloc, which
	 * honours them. Non-blocking flags fall back too since vmalloc takes
	 * them (Linux 7.0; 6.0's "mm: fix BUG splat with kvmalloc +
	 * GFP_ATOMIC" had returned NULL for them), without huge mappings. */
	unsigned long vm_flags = gfpflags_allow_blocking(flags) ? VM_ALLOW_HUGE_VMAP : 0;
	ret = __vmalloc_node_range(size, 1, VMALLOC_START, VMALLOC_END, flags, PAGE_KERNEL_VMALLOC, vm_flags, node,
				   __builtin_return_address(0));
	if (ret)
		__atomic_add_fetch(&kvmalloc_vmalloc_count, 1, __ATOMIC_RELAXED);
	return ret;
}

void *kvmalloc(size_t size, gfp_t flags)
{
	return kvmalloc_node(size, flags, NUMA_NO_NODE);
}

void *kvzalloc(size_t size, gfp_t flags)
{
	return kvmalloc_node(size, flags | __GFP_ZERO, NUMA_NO_NODE);
}

void *kvzalloc_node(size_t size, gfp_t flags, int node)
{
	return kvmalloc_node(size, flags | __GFP_ZERO, node);
}

void *kvmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;
	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kvmalloc(bytes, flags);
}

void *kvcalloc(size_t n, size_t size, gfp_t flags)
{
	return kvmalloc_array(n, size, flags | __GFP_ZERO);
}

void kvfree(const void *addr)
{
	if (is_vmalloc_addr(addr))
		vfree(addr);
	else
		kfree(addr);
}

/* The bytes usable at p: ksize for kmalloc, the mapped size for vmalloc. */
static size_t kv_usable_size(const void *p)
{
	if (!is_vmalloc_addr(p))
		return ksize(p);
	struct vm_struct *vm = find_vm_area(p);
	return vm ? (size_t)vm->nr_pages << PAGE_SHIFT : 0;
}

void *kvrealloc(const void *p, size_t size, gfp_t flags)
{
	if (!p || ZERO_OR_NULL_PTR(p))
		return kvmalloc(size, flags);
	if (!size) {
		kvfree(p);
		return ZERO_SIZE_PTR;
	}
	size_t old = kv_usable_size(p);
	if (size <= old) /* in place, as krealloc and vrealloc do when it fits */
		return (void *)p;
	void *n = kvmalloc(size, flags & ~__GFP_ZERO);
	if (!n)
		return NULL;
	memcpy(n, p, old);
	if (flags & __GFP_ZERO)
		memset((char *)n + old, 0, size - old);
	kvfree(p);
	return n;
}
