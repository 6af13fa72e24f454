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

/* --- kvmalloc --- */
/* Linux's mm/util.c kvmalloc_node and friends; see mm/util.h. */
#include "kernel/printk.h"
#include "kernel/string.h"
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
	/* The seed series removed "(flags & GFP_KERNEL) != GFP_KERNEL ->
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
