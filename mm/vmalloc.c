/* The vmalloc area (contract: mm/vmalloc.h), after Linux's mm/vmalloc.c.
 *
 * Address space: the free ranges live in the augmented tree of
 * mm/vmap_area.c (Linux >= 5.2); allocated areas (struct vmap_area, and
 * for vmalloc/vmap a struct vm_struct) in a busy tree sorted by address and
 * a list in the same order, for find_vm_area and /proc/vmallocinfo. Every
 * vmalloc/vmap area takes one more page than asked, left unmapped: the
 * guard page after it (Linux's get_vm_area_size / VM_NO_GUARD). The lowest
 * fit puts areas next to each other, so each also has a guard (the one of
 * the area below, or free space) under it, which kernel stacks rely on.
 *
 * Freeing is lazy, as Linux's (free_vmap_area_noflush,
 * __purge_vmap_area_lazy): vfree clears the area's entries at once and
 * gives its pages back, but the range goes onto the purge list, not back
 * to the free tree; once lazy_max_pages() pages wait there (or the area is
 * full), one purge detaches the page tables those ranges left empty, does
 * one flush_tlb_kernel_range for all of them, frees the tables, and only
 * then makes the ranges free again, so no CPU can hold a stale translation
 * of an address that is handed out again.
 *
 * GFP (Michal Hocko's 2021 series "extend vmalloc support for constrained
 * allocations", whose last patch is "mm: allow !GFP_KERNEL allocations for
 * kvmalloc", 2021-10-25, Linux 5.17 commit a421ef303008; the Linux 5.17
 * commits named at
 * each place): the vmap_area and vm_struct, the page array, the pages and
 * the page tables all follow the caller's gfp; the page tables, whose
 * allocator cannot be told, are made inside the scope that matches it
 * (memalloc_apply_gfp_scope).
 *
 * Locking: vmap_area_lock (irqsave: find_vm_area and vfree's deferral run
 * in interrupts) covers the free tree, the busy tree and list, the purge
 * list and the counters; it is never held while allocating, mapping or
 * flushing. vmap_purge_lock (a mutex) makes purges one at a time. An
 * area's vm_struct belongs to whoever allocated the area until it frees it. */
#include "mm/vmalloc.h"
#include "fs/proc/proc_fs.h"
#include "arch/x86_64/tlb.h"
#include "arch/x86_64/traps.h"
#include "kernel/init.h"
#include "kernel/ksyms.h"
#include "kernel/mutex.h"
#include "kernel/printk.h"
#include "fs/proc/proc_fs.h"
#include "kernel/sched.h"
#include "kernel/sched_mm.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/log2.h"
#include "lib/string.h"
#include "mm/kernel_map.h"
#include "mm/page.h"
#include "mm/page_alloc.h"
#include "mm/slab.h"
#include "mm/vmap_area.h"

#define VMAP_RAM 0x1ul /* va->flags: a vm_map_ram area (no vm_struct) */
#define VMAP_BLOCK 0x2ul /* va->flags, with VMAP_RAM: a per-CPU vmap block's area */
/* vm->flags, mmlab's own: handed to vfree_atomic, waiting for the drain
 * (a second vfree of it is a double free). */
#define VM_DEFERRED_FREE 0x80000000ul

static DEFINE_SPINLOCK(vmap_area_lock);
static struct vmap_free_tree free_tree;
static struct vmap_area initial_area; /* the whole area, before anything was allocated */
static bool vmap_ready;
static struct rb_root busy_root = RB_ROOT;
static LIST_HEAD(busy_list);
static LIST_HEAD(purge_list);
static struct mutex vmap_purge_lock;

static unsigned long nr_busy, nr_lazy, vmap_lazy_nr;
static unsigned long stat_purges, stat_flushes, stat_bad_vfrees, stat_deferred;
static unsigned long nr_vmalloc_pages_total; /* atomic */
bool vmap_lazy_disabled;

static bool is_power_of_2(unsigned long x) { return x && !(x & (x - 1)); }

/* "function+0x1a/0x80", as Linux's %pS. */
static const char *caller_name(const void *caller, char *buf, size_t size)
{
	u64 off = 0, sz = 0;
	const char *name = ksym_lookup((u64)(unsigned long)caller, &off, &sz);
	if (name)
		snprintf(buf, size, "%s+%#lx/%#lx", name, (unsigned long)off, (unsigned long)sz);
	else
		snprintf(buf, size, "%p", caller);
	return buf;
}

/* ---- the trees ------------------------------------------------------ */

static void free_va_node(struct vmap_area *va)
{
	if (va != &initial_area)
		kfree(va);
}

static void vmap_init_locked(void)
{
	if (vmap_ready)
		return;
	vmap_free_tree_init(&free_tree, free_va_node);
	initial_area.va_start = VMALLOC_START;
	initial_area.va_end = VMALLOC_ALLOC_END;
	vmap_free_insert(&free_tree, &initial_area);
	mutex_init(&vmap_purge_lock);
	vmap_ready = true;
}

static void vmap_init(void)
{
	unsigned long flags;
	spin_lock_irqsave(&vmap_area_lock, flags);
	vmap_init_locked();
	spin_unlock_irqrestore(&vmap_area_lock, flags);
}

static struct vmap_area *busy_va(struct rb_node *n) { return rb_entry(n, struct vmap_area, rb_node); }

static void busy_insert_locked(struct vmap_area *va)
{
	struct rb_node **link = &busy_root.rb_node, *parent = NULL;
	while (*link) {
		parent = *link;
		link = va->va_start < busy_va(parent)->va_start ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&va->rb_node, parent, link);
	rb_insert_color(&va->rb_node, &busy_root);
	struct rb_node *prev = rb_prev(&va->rb_node);
	list_add(&va->list, prev ? &busy_va(prev)->list : &busy_list);
	nr_busy++;
}

/* The busy area that contains addr (Linux's __find_vmap_area). */
static struct vmap_area *busy_find_locked(unsigned long addr)
{
	struct rb_node *n = busy_root.rb_node;
	while (n) {
		struct vmap_area *va = busy_va(n);
		if (addr < va->va_start)
			n = n->rb_left;
		else if (addr >= va->va_end)
			n = n->rb_right;
		else
			return va;
	}
	return NULL;
}

static void busy_unlink_locked(struct vmap_area *va)
{
	rb_erase(&va->rb_node, &busy_root);
	list_del(&va->list);
	nr_busy--;
}

/* ---- allocating and freeing ranges ------------------------------------ */

static void purge_vmap_area_lazy(void);

/* Linux's alloc_vmap_area: size bytes (page multiple, the guard included)
 * at an align-aligned address in [vstart, vend). The nodes come from gfp
 * (Linux: gfp_mask & GFP_RECLAIM_MASK). When the range is full, the lazy
 * areas are purged and the search tried once more (blocking gfp only: the
 * purge sleeps). Returns the area, or NULL with *err -EINVAL (bad size or
 * align), -ENOMEM (no node), -EBUSY (no room). */
static struct vmap_area *alloc_vmap_area(unsigned long size, unsigned long align, unsigned long vstart,
					 unsigned long vend, int node, gfp_t gfp, unsigned long va_flags, int *err)
{
	if (!size || (size & ~PAGE_MASK) || !is_power_of_2(align)) {
		*err = -EINVAL;
		return NULL;
	}
	gfp &= GFP_RECLAIM_MASK;
	struct vmap_area *va = kmalloc_node(sizeof(*va), gfp, node);
	if (!va) {
		*err = -ENOMEM;
		return NULL;
	}
	bool purged = false;
	unsigned long addr, flags;
	for (;;) {
		/* A split in the middle of a free range needs a second node:
		 * taken with the caller's gfp before the lock (Linux's
		 * ne_fit_preload). */
		struct vmap_area *spare = kmalloc_node(sizeof(*spare), gfp, node);
		spin_lock_irqsave(&vmap_area_lock, flags);
		vmap_init_locked();
		addr = vmap_free_alloc(&free_tree, size, align, vstart, vend, &spare);
		if (free_tree.taken) {
			/* An exact fit: the free node becomes the busy one. */
			struct vmap_area *old = va;
			va = free_tree.taken;
			free_tree.taken = NULL;
			kfree(spare);
			spare = old;
		}
		if (addr != VMAP_NO_SPACE && addr != VMAP_NEED_SPARE) {
			va->va_start = addr;
			va->va_end = addr + size;
			va->vm = NULL;
			va->flags = va_flags;
			INIT_LIST_HEAD(&va->purge_list);
			busy_insert_locked(va);
		}
		spin_unlock_irqrestore(&vmap_area_lock, flags);
		kfree(spare);
		if (addr == VMAP_NEED_SPARE) {
			kfree(va);
			*err = -ENOMEM;
			return NULL;
		}
		if (addr != VMAP_NO_SPACE)
			return va;
		if (purged || !gfpflags_allow_blocking(gfp) || in_interrupt())
			break;
		purge_vmap_area_lazy();
		purged = true;
	}
	if (!(gfp & __GFP_NOWARN))
		pr_warn("vmalloc_node_range for size %lu failed: Address range restricted to %#lx - %#lx\n", size,
			vstart, vend);
	kfree(va);
	*err = -EBUSY;
	return NULL;
}

unsigned long lazy_max_pages(void)
{
	unsigned n = num_online_cpus();
	unsigned fls = n ? 32 - (unsigned)__builtin_clz(n) : 1;
	return (32ul << 20) / PAGE_SIZE * fls; /* Linux's: 32 MiB times fls(CPUs) */
}

/* Linux's __purge_vmap_area_lazy: everything on the purge list, one flush. */
static void purge_vmap_area_lazy(void)
{
	LIST_HEAD(local);
	LIST_HEAD(tables);
	unsigned long flags, start = ~0ul, end = 0;

	vmap_init();
	mutex_lock(&vmap_purge_lock);
	spin_lock_irqsave(&vmap_area_lock, flags);
	while (!list_empty(&purge_list))
		list_move(purge_list.next, &local);
	vmap_lazy_nr = 0;
	nr_lazy = 0;
	spin_unlock_irqrestore(&vmap_area_lock, flags);
	if (list_empty(&local)) {
		mutex_unlock(&vmap_purge_lock);
		return;
	}
	struct vmap_area *va;
	list_for_each_entry(va, &local, purge_list) {
		start = min(start, va->va_start);
		end = max(end, va->va_end);
		/* The leaves are clear since the free; tables left empty are
		 * detached now and freed after the flush. */
		unmap_kernel_range_noflush(va->va_start, va_size(va), &tables);
	}
	flush_tlb_kernel_range(start, end);
	while (!list_empty(&tables)) {
		struct page *p = list_first_entry(&tables, struct page, lru);
		list_del(&p->lru);
		__free_page(p);
	}
	spin_lock_irqsave(&vmap_area_lock, flags);
	stat_purges++;
	stat_flushes++;
	while (!list_empty(&local)) {
		va = list_first_entry(&local, struct vmap_area, purge_list);
		list_del(&va->purge_list);
		if (!vmap_free_insert(&free_tree, va)) {
			pr_err("BUG: vmalloc: purged range %#lx-%#lx overlaps a free one\n", va->va_start, va->va_end);
			kfree(va);
		}
	}
	spin_unlock_irqrestore(&vmap_area_lock, flags);
	mutex_unlock(&vmap_purge_lock);
}

static void vmap_blocks_unmap_aliases(void);

/* Linux's vm_unmap_aliases: no stale TLB entry is left for anything
 * unmapped so far, whether a lazily freed area or a freed slice of a vmap
 * block. */
void vm_unmap_aliases(void)
{
	vmap_blocks_unmap_aliases();
	purge_vmap_area_lazy();
}

/* An unlinked area whose entries are clear goes onto the purge list
 * (Linux's free_vmap_area_noflush); process context. */
static void free_vmap_area_noflush(struct vmap_area *va)
{
	unsigned long flags;
	spin_lock_irqsave(&vmap_area_lock, flags);
	list_add_tail(&va->purge_list, &purge_list);
	nr_lazy++;
	vmap_lazy_nr += va_size(va) >> PAGE_SHIFT;
	bool purge = vmap_lazy_disabled || vmap_lazy_nr > lazy_max_pages();
	spin_unlock_irqrestore(&vmap_area_lock, flags);
	if (purge)
		purge_vmap_area_lazy();
}

/* Finds the area that starts at addr and takes it out of the busy tree
 * (Linux's find_unlink_vmap_area); reports anything else as what's
 * mistake, naming the area addr falls in, and returns NULL. want_ram
 * selects vm_map_ram areas (no vm_struct) or the others. */
static struct vmap_area *find_unlink_vmap_area(const void *addr, bool want_ram, const char *what,
					       const void *caller)
{
	unsigned long flags, a = (unsigned long)addr, start = 0, end = 0;
	spin_lock_irqsave(&vmap_area_lock, flags);
	struct vmap_area *va = vmap_ready ? busy_find_locked(a) : NULL;
	/* caller NULL: vmalloc's own failure path and the deferred drain,
	 * which may free areas not yet set up, or already deferred. */
	/* A vmap block's area goes only with its block (caller NULL). */
	bool ok = va && va->va_start == a && !!(va->flags & VMAP_RAM) == want_ram &&
		  (!(va->flags & VMAP_BLOCK) || !caller) &&
		  (want_ram || (va->vm && (!caller || !(va->vm->flags & (VM_UNINITIALIZED | VM_DEFERRED_FREE)))));
	if (ok)
		busy_unlink_locked(va);
	else {
		stat_bad_vfrees++;
		if (va) {
			start = va->va_start;
			end = va->va_end;
		}
	}
	spin_unlock_irqrestore(&vmap_area_lock, flags);
	if (ok)
		return va;
	char buf[96];
	if (end && a != start)
		pr_err("%s: Trying to %s() %p, which is %#lx bytes into the vm area %#lx-%#lx, not its start; "
		       "nothing freed (caller %s)\n", what, what, addr, a - start, start, end,
		       caller_name(caller, buf, sizeof(buf)));
	else if (end)
		pr_err("%s: Trying to %s() the vm area at %p, which %s; nothing freed (caller %s)\n", what, what,
		       addr, want_ram ? "vm_map_ram did not map" : "is a vm_map_ram area or not set up",
		       caller_name(caller, buf, sizeof(buf)));
	else
		pr_err("%s: Trying to %s() nonexistent vm area (%p); nothing freed (caller %s)\n", what, what, addr,
		       caller_name(caller, buf, sizeof(buf)));
	return NULL;
}

static unsigned long get_vm_area_size(const struct vm_struct *area)
{
	return (area->flags & VM_NO_GUARD) ? area->size : area->size - PAGE_SIZE;
}

/* ---- vm_struct areas ------------------------------------------------ */

struct vm_struct *__get_vm_area_node(unsigned long size, unsigned long align, unsigned long flags,
				     unsigned long start, unsigned long end, int node, gfp_t gfp,
				     const void *caller)
{
	unsigned long aligned = ALIGN_UP(size, PAGE_SIZE);
	if (!size || aligned < size)
		return NULL;
	size = aligned;
	if (!(flags & VM_NO_GUARD)) {
		if (size + PAGE_SIZE < size)
			return NULL;
		size += PAGE_SIZE;
	}
	struct vm_struct *area = kzalloc_node(sizeof(*area), gfp & GFP_RECLAIM_MASK, node);
	if (!area)
		return NULL;
	int err;
	struct vmap_area *va = alloc_vmap_area(size, align, start, end, node, gfp, 0, &err);
	if (!va) {
		kfree(area);
		return NULL;
	}
	area->addr = (void *)va->va_start;
	area->size = size;
	area->flags = flags;
	area->caller = caller;
	unsigned long irq;
	spin_lock_irqsave(&vmap_area_lock, irq);
	va->vm = area;
	spin_unlock_irqrestore(&vmap_area_lock, irq);
	return area;
}

struct vm_struct *get_vm_area(unsigned long size, unsigned long flags)
{
	return __get_vm_area_node(size, 1, flags, VMALLOC_START, VMALLOC_END, NUMA_NO_NODE, GFP_KERNEL,
				  __builtin_return_address(0));
}

struct vm_struct *find_vm_area(const void *addr)
{
	unsigned long flags;
	struct vm_struct *vm = NULL;
	spin_lock_irqsave(&vmap_area_lock, flags);
	if (vmap_ready) {
		struct vmap_area *va = busy_find_locked((unsigned long)addr);
		if (va && !(va->flags & VMAP_RAM))
			vm = va->vm;
	}
	spin_unlock_irqrestore(&vmap_area_lock, flags);
	return vm;
}

/* Unmaps and releases the range of an area; the caller owns what the
 * vm_struct points to. */
static struct vm_struct *remove_vm_area_caller(const void *addr, const char *what, const void *caller)
{
	struct vmap_area *va = find_unlink_vmap_area(addr, false, what, caller);
	if (!va)
		return NULL;
	struct vm_struct *vm = va->vm;
	unmap_kernel_range_noflush(va->va_start, get_vm_area_size(vm), NULL);
	free_vmap_area_noflush(va);
	return vm;
}

void free_vm_area(struct vm_struct *area)
{
	if (!area)
		return;
	struct vm_struct *vm = remove_vm_area_caller(area->addr, "free_vm_area", __builtin_return_address(0));
	kfree(vm);
}

static void kvfree_array(void *p)
{
	if (is_vmalloc_addr(p))
		vfree(p);
	else
		kfree(p);
}

/* Linux's vfree body (after remove_vm_area): the pages, the array, the
 * vm_struct. */
static void vfree_caller(const void *addr, const void *caller)
{
	struct vm_struct *vm = remove_vm_area_caller(addr, "vfree", caller);
	if (!vm)
		return;
	if (vm->flags & (VM_ALLOC | VM_MAP_PUT_PAGES)) {
		unsigned int step = 1u << vm->page_order;
		for (unsigned int i = 0; i < vm->nr_pages; i += step)
			__free_pages(vm->pages[i], vm->page_order);
		if (vm->flags & VM_ALLOC)
			__atomic_sub_fetch(&nr_vmalloc_pages_total, vm->nr_pages, __ATOMIC_RELAXED);
		kvfree_array(vm->pages);
	}
	kfree(vm);
}

/* ---- deferred frees (atomic context) --------------------------------- */

/* Addresses waiting to be freed, linked through their own first word, as
 * Linux's vfree_deferred llist: no allocation in interrupt context. */
static void *deferred_head;
static struct task_struct *vfree_task;

static void drain_deferred(void)
{
	void *p = __atomic_exchange_n(&deferred_head, NULL, __ATOMIC_ACQUIRE);
	while (p) {
		void *next = *(void **)p;
		vfree_caller(p, NULL);
		p = next;
	}
}

void vfree_atomic(const void *addr)
{
	if (!addr)
		return;
	/* Only a whole vmalloc or vmap area can carry the link word; anything
	 * else is reported now, from here. */
	unsigned long flags, start = 0, end = 0;
	bool ok = false;
	const char *why = "nonexistent vm area";
	spin_lock_irqsave(&vmap_area_lock, flags);
	if (vmap_ready) {
		struct vmap_area *va = busy_find_locked((unsigned long)addr);
		ok = va && va->va_start == (unsigned long)addr && !(va->flags & VMAP_RAM) && va->vm &&
		     (va->vm->flags & (VM_ALLOC | VM_MAP)) &&
		     !(va->vm->flags & (VM_UNINITIALIZED | VM_DEFERRED_FREE));
		if (ok) {
			va->vm->flags |= VM_DEFERRED_FREE;
			stat_deferred++;
		} else if (va) {
			start = va->va_start;
			end = va->va_end;
			why = va->va_start != (unsigned long)addr ? "not the start of the vm area"
			      : (va->flags & VMAP_RAM)		 ? "a vm_map_ram area"
			      : va->vm && (va->vm->flags & VM_DEFERRED_FREE) ? "already being freed"
									 : "an area not set up";
		}
	}
	if (!ok)
		stat_bad_vfrees++;
	spin_unlock_irqrestore(&vmap_area_lock, flags);
	if (!ok) {
		pr_err("vfree: Trying to vfree() %p, %s (%#lx-%#lx); nothing freed\n", addr, why, start, end);
		return;
	}
	void *old = __atomic_load_n(&deferred_head, __ATOMIC_RELAXED);
	do {
		*(void **)addr = old;
	} while (!__atomic_compare_exchange_n(&deferred_head, &old, (void *)addr, false, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	struct task_struct *t = READ_ONCE(vfree_task);
	if (t)
		wake_up_process(t);
}

static int vfree_deferred_thread(void *data)
{
	(void)data;
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!__atomic_load_n(&deferred_head, __ATOMIC_ACQUIRE))
			schedule();
		__set_current_state(TASK_RUNNING);
		drain_deferred();
	}
	return 0;
}

static int vfree_deferred_init(void)
{
	vmap_init();
	struct task_struct *t = kthread_create(vfree_deferred_thread, NULL, "vfree_deferred");
	if (!t)
		return -ENOMEM;
	WRITE_ONCE(vfree_task, t);
	wake_up_process(t);
	return 0;
}
late_initcall(vfree_deferred_init);

void vfree(const void *addr)
{
	if (!addr)
		return;
	if (in_interrupt()) {
		vfree_atomic(addr);
		return;
	}
	drain_deferred();
	vfree_caller(addr, __builtin_return_address(0));
}

/* ---- vmalloc ---------------------------------------------------------- */

/* Linux's vm_area_alloc_pages: nr_pages small pages as 2^order blocks from
 * node (NUMA_NO_NODE: this CPU's, by policy), fewer on failure. */
static unsigned int vm_area_alloc_pages(gfp_t gfp, int node, unsigned int order, unsigned int nr_pages,
					struct page **pages)
{
	unsigned int nr = 0;
	if (order) /* a huge page is a wish: no retrying, no NOFAIL (Linux's) */
		gfp = (gfp & ~__GFP_NOFAIL) | __GFP_NORETRY | __GFP_NOWARN;
	while (nr < nr_pages) {
		struct page *page = node == NUMA_NO_NODE ? alloc_pages(gfp, order) : alloc_pages_node(node, gfp, order);
		if (!page)
			break;
		for (unsigned int i = 0; i < 1u << order; i++)
			pages[nr + i] = page + i;
		nr += 1u << order;
		/* A scheduling point after each block, and for small pages
		 * after each run of 100 (and the last), where Linux 6.1's bulk
		 * allocation of them makes its one (a 16 KiB thread stack: one,
		 * not four). Not before the scheduler has a current task (the
		 * first threads' stacks come from here in sched_init). */
		if ((order || nr % 100 == 0 || nr == nr_pages) && gfpflags_allow_blocking(gfp) && !in_interrupt() &&
		    current)
			cond_resched();
	}
	return nr;
}

static int vmap_area_pages(struct vm_struct *area, u64 prot, gfp_t gfp)
{
	unsigned long addr = (unsigned long)area->addr;
	if (!area->page_order)
		return map_kernel_range(addr, (unsigned long)area->nr_pages << PAGE_SHIFT, prot, area->pages, gfp);
	for (unsigned int i = 0; i < area->nr_pages; i += 1u << area->page_order) {
		int err = map_kernel_range_phys(addr + ((unsigned long)i << PAGE_SHIFT), PMD_SIZE,
						page_to_phys(area->pages[i]), prot, PMD_SHIFT, gfp);
		if (err)
			return err; /* vfree unmaps what was mapped */
	}
	return 0;
}

/* Linux's warn_alloc lines of vmalloc, unless __GFP_NOWARN. */
#define vmalloc_warn(gfp, fmt, ...)                                                     \
	do {                                                                            \
		if (!((gfp) & __GFP_NOWARN))                                            \
			pr_warn("vmalloc error: " fmt, ##__VA_ARGS__);                  \
	} while (0)

/* Linux 5.17's __vmalloc_area_node, with 7.0's memalloc_apply_gfp_scope. */
static void *__vmalloc_area_node(struct vm_struct *area, gfp_t gfp, u64 prot, unsigned int page_shift, int node)
{
	gfp_t nested_gfp = (gfp & GFP_RECLAIM_MASK) | __GFP_ZERO;
	bool nofail = gfp & __GFP_NOFAIL;
	unsigned long size = get_vm_area_size(area);
	unsigned int nr_small_pages = (unsigned int)(size >> PAGE_SHIFT);
	unsigned long array_size = (unsigned long)nr_small_pages * sizeof(struct page *);

	/* __GFP_NOFAIL and non-blocking are exclusive (Linux 7.0). */
	if (!gfpflags_allow_blocking(gfp))
		nofail = false;
	/* "mm/vmalloc: fix the page array of large vmallocs": the array may
	 * itself be vmalloc'ed, with the same flags. */
	if (array_size > PAGE_SIZE)
		area->pages = __vmalloc_node(array_size, 1, nested_gfp, node, area->caller);
	else
		area->pages = kmalloc_node(array_size, nested_gfp, node);
	if (!area->pages) {
		vmalloc_warn(gfp, "size %lu, failed to allocate page array size %lu\n", size, array_size);
		vfree_caller(area->addr, NULL); /* not set up: only vmalloc itself may free it */
		return NULL;
	}
	area->page_order = page_shift - PAGE_SHIFT;
	area->nr_pages = vm_area_alloc_pages(gfp | __GFP_NOWARN, node, area->page_order, nr_small_pages,
					     area->pages);
	__atomic_add_fetch(&nr_vmalloc_pages_total, area->nr_pages, __ATOMIC_RELAXED);
	if (area->nr_pages != nr_small_pages) {
		/* A huge attempt falls back to small pages quietly. */
		if (!area->page_order)
			vmalloc_warn(gfp, "size %lu, failed to allocate pages (%lu allocated)\n", size,
				     (unsigned long)area->nr_pages << PAGE_SHIFT);
		goto fail;
	}

	/* The page tables take no gfp of ours: the scope makes them honour
	 * it ("mm/vmalloc: alloc GFP_NO{FS,IO} for vmalloc", 5.17; the
	 * non-blocking case 7.0). mmlab's map_kernel_range also takes the
	 * gfp, and gets the nested one. */
	unsigned int scope = memalloc_apply_gfp_scope(gfp);
	int ret;
	for (;;) {
		ret = vmap_area_pages(area, prot, nested_gfp & ~__GFP_ZERO);
		if (ret != -ENOMEM || !nofail)
			break;
		/* "mm/vmalloc: add support for __GFP_NOFAIL": wait and retry. */
		unmap_kernel_range_noflush((unsigned long)area->addr, size, NULL);
		schedule_timeout_uninterruptible(1);
	}
	memalloc_restore_scope(scope);
	if (ret < 0) {
		vmalloc_warn(gfp, "size %lu, failed to map pages (%d)\n", size, ret);
		goto fail;
	}
	return area->addr;
fail:
	vfree_caller(area->addr, NULL);
	return NULL;
}

/* The flags vmalloc takes (Linux 7.0's GFP_VMALLOC_SUPPORTED with
 * "mm: allow __GFP_RETRY_MAYFAIL in vmalloc"); others are warned about
 * and dropped (vmalloc_fix_flags), at __vmalloc and vmalloc_huge. */
#define GFP_VMALLOC_SUPPORTED                                                                     \
	(GFP_KERNEL | GFP_ATOMIC | GFP_NOWAIT | __GFP_NOFAIL | __GFP_ZERO | __GFP_NORETRY |         \
	 __GFP_RETRY_MAYFAIL | GFP_NOFS | GFP_NOIO | GFP_KERNEL_ACCOUNT | GFP_USER | __GFP_NOWARN)

static gfp_t vmalloc_fix_flags(gfp_t gfp)
{
	gfp_t invalid = gfp & ~GFP_VMALLOC_SUPPORTED;
	if (invalid) {
		pr_warn("vmalloc: Unexpected gfp: %#x. Fixing up to gfp: %#x. Fix your code!\n", invalid,
			gfp & GFP_VMALLOC_SUPPORTED);
		gfp &= GFP_VMALLOC_SUPPORTED;
	}
	return gfp;
}

void *__vmalloc_node_range(unsigned long size, unsigned long align, unsigned long start, unsigned long end,
			   gfp_t gfp, u64 prot, unsigned long vm_flags, int node, const void *caller)
{
	unsigned long real_size = size, real_align = align;
	unsigned int shift = PAGE_SHIFT;

	if (!size) {
		if (!(gfp & __GFP_NOWARN))
			pr_warn("vmalloc: size 0 requested\n");
		return NULL;
	}
	if (in_interrupt() && gfpflags_allow_blocking(gfp)) {
		pr_warn("vmalloc: a blocking allocation (gfp %#x) from interrupt context refused\n", gfp);
		return NULL;
	}
	if ((size >> PAGE_SHIFT) > totalram_pages() || ALIGN_UP(size, PAGE_SIZE) < size) {
		vmalloc_warn(gfp, "size %lu, exceeds total pages\n", real_size);
		return NULL;
	}
	if ((vm_flags & VM_ALLOW_HUGE_VMAP) && size >= PMD_SIZE) {
		shift = PMD_SHIFT;
		align = max(real_align, PMD_SIZE);
		size = ALIGN_UP(real_size, PMD_SIZE);
	}
	for (;;) {
		struct vm_struct *area = __get_vm_area_node(size, align, VM_ALLOC | VM_UNINITIALIZED | vm_flags,
							     start, end, node, gfp, caller);
		void *addr = NULL;
		if (!area)
			vmalloc_warn(shift > PAGE_SHIFT ? gfp | __GFP_NOWARN : gfp,
				     "size %lu, vm_struct allocation failed\n", real_size);
		else
			addr = __vmalloc_area_node(area, gfp, prot, shift, node);
		if (addr) {
			unsigned long flags;
			spin_lock_irqsave(&vmap_area_lock, flags);
			area->flags &= ~VM_UNINITIALIZED;
			spin_unlock_irqrestore(&vmap_area_lock, flags);
			return addr;
		}
		if (shift == PAGE_SHIFT)
			return NULL;
		shift = PAGE_SHIFT; /* no huge pages: small ones */
		align = real_align;
		size = real_size;
	}
}

void *__vmalloc_node(unsigned long size, unsigned long align, gfp_t gfp, int node, const void *caller)
{
	return __vmalloc_node_range(size, align, VMALLOC_START, VMALLOC_END, gfp, PAGE_KERNEL_VMALLOC, 0, node,
				    caller);
}

void *__vmalloc(unsigned long size, gfp_t gfp)
{
	return __vmalloc_node(size, 1, vmalloc_fix_flags(gfp), NUMA_NO_NODE, __builtin_return_address(0));
}

void *vmalloc(unsigned long size)
{
	return __vmalloc_node(size, 1, GFP_KERNEL, NUMA_NO_NODE, __builtin_return_address(0));
}

void *vzalloc(unsigned long size)
{
	return __vmalloc_node(size, 1, GFP_KERNEL | __GFP_ZERO, NUMA_NO_NODE, __builtin_return_address(0));
}

void *vmalloc_node(unsigned long size, int node)
{
	return __vmalloc_node(size, 1, GFP_KERNEL, node, __builtin_return_address(0));
}

void *vzalloc_node(unsigned long size, int node)
{
	return __vmalloc_node(size, 1, GFP_KERNEL | __GFP_ZERO, node, __builtin_return_address(0));
}

void *vmalloc_huge(unsigned long size, gfp_t gfp)
{
	return __vmalloc_node_range(size, 1, VMALLOC_START, VMALLOC_END, vmalloc_fix_flags(gfp),
				    PAGE_KERNEL_VMALLOC, VM_ALLOW_HUGE_VMAP, NUMA_NO_NODE,
				    __builtin_return_address(0));
}

/* ---- vmap, vm_map_ram ------------------------------------------------ */

void *vmap(struct page **pages, unsigned int count, unsigned long flags, u64 prot)
{
	if (!count || count > totalram_pages())
		return NULL;
	unsigned long size = (unsigned long)count << PAGE_SHIFT;
	struct vm_struct *area = __get_vm_area_node(size, 1, flags | VM_MAP, VMALLOC_START, VMALLOC_END,
						    NUMA_NO_NODE, GFP_KERNEL, __builtin_return_address(0));
	if (!area)
		return NULL;
	if (map_kernel_range((unsigned long)area->addr, size, prot, pages, GFP_KERNEL) < 0) {
		free_vm_area(area);
		return NULL;
	}
	if (flags & VM_MAP_PUT_PAGES) {
		area->pages = pages;
		area->nr_pages = count;
	}
	return area->addr;
}

void vunmap(const void *addr)
{
	if (!addr)
		return;
	if (in_interrupt()) {
		pr_err("vunmap: called from interrupt context for %p; nothing unmapped\n", addr);
		return;
	}
	struct vm_struct *vm = find_vm_area(addr);
	if (vm && (vm->flags & VM_ALLOC)) {
		pr_err("vunmap: %p is a vmalloc area (use vfree); nothing unmapped\n", addr);
		return;
	}
	vfree_caller(addr, __builtin_return_address(0));
}

/*
 * Per-CPU vmap blocks (Linux's vb_alloc/vb_free, "Per cpu vmap blocks",
 * Nick Piggin, 2.6.28): vm_map_ram of up to VMAP_MAX_ALLOC pages takes a
 * power-of-two slice of a VMAP_BLOCK_SIZE area that belongs to the CPU it
 * ran on, so the common small mapping takes no global lock and no area of
 * its own. (The unmap finds the block through the busy tree, under
 * vmap_area_lock; Linux finds it in a per-CPU xarray.) Slices are handed out in order (a bump offset) and never
 * reused: a freed slice is unmapped at once but its TLB entries are only
 * marked dirty; the whole block goes to the lazy purge, which flushes its
 * range once, when every slice has been freed (vb->dirty reaches
 * VMAP_BBMAP_BITS). vm_unmap_aliases flushes the dirty slices of live
 * blocks and frees the blocks no slice is mapped in any more (Linux's
 * purge_fragmented_blocks). mmlab records each slice's order at its first
 * page, so an address or a count that vm_map_ram did not return is
 * reported and nothing is unmapped (Linux trusts the caller).
 *
 * Locking: a CPU's queue lock, then a block's lock; vmap_blocks_lock (the
 * list of all blocks) then a block's lock. A block leaves every list
 * before it is freed.
 */
/* VMAP_MAX_ALLOC, VMAP_BBMAP_BITS, VMAP_BLOCK_SIZE: mm/vmalloc.h. */

struct vmap_block {
	spinlock_t lock;
	struct vmap_area *va;
	unsigned long free, dirty;	    /* pages not handed out yet; freed ones */
	unsigned long dirty_min, dirty_max; /* the freed pages not flushed yet */
	unsigned int cpu;		    /* whose queue it is on while free > 0 */
	struct list_head free_list;	    /* on that queue */
	struct list_head all;		    /* on vmap_blocks */
	u8 order_at[VMAP_BBMAP_BITS];	    /* 1 + the order of a live slice at its first page */
};

struct vmap_block_queue {
	spinlock_t lock;
	struct list_head free;
};

static struct vmap_block_queue vmap_block_queue[NR_CPUS];
static DEFINE_SPINLOCK(vmap_blocks_lock);
static LIST_HEAD(vmap_blocks);
static unsigned long nr_vmap_blocks;
static bool vmap_block_queues_ready; /* guarded by vmap_blocks_lock */

static void vmap_block_queues_init(void)
{
	unsigned long flags;
	spin_lock_irqsave(&vmap_blocks_lock, flags);
	if (!vmap_block_queues_ready) {
		for (unsigned int c = 0; c < NR_CPUS; c++) {
			spin_lock_init(&vmap_block_queue[c].lock);
			INIT_LIST_HEAD(&vmap_block_queue[c].free);
		}
		vmap_block_queues_ready = true;
	}
	spin_unlock_irqrestore(&vmap_blocks_lock, flags);
}

/* A new block for this CPU with its first slice taken (Linux's
 * new_vmap_block). */
static void *new_vmap_block(unsigned int order, int node, gfp_t gfp)
{
	struct vmap_block *vb = kmalloc_node(sizeof(*vb), gfp & GFP_RECLAIM_MASK, node);
	if (!vb)
		return NULL;
	int err;
	struct vmap_area *va = alloc_vmap_area(VMAP_BLOCK_SIZE, VMAP_BLOCK_SIZE, VMALLOC_START, VMALLOC_END,
					       node, gfp, VMAP_RAM | VMAP_BLOCK, &err);
	if (!va) {
		kfree(vb);
		return NULL;
	}
	memset(vb, 0, sizeof(*vb));
	spin_lock_init(&vb->lock);
	vb->va = va;
	vb->free = VMAP_BBMAP_BITS - (1ul << order);
	vb->dirty_min = VMAP_BBMAP_BITS;
	vb->order_at[0] = (u8)(order + 1);
	va->vb = vb;
	unsigned long flags;
	spin_lock_irqsave(&vmap_blocks_lock, flags);
	list_add_tail(&vb->all, &vmap_blocks);
	nr_vmap_blocks++;
	spin_unlock_irqrestore(&vmap_blocks_lock, flags);
	/* The queue of the CPU we run on now (we may have slept). */
	vb->cpu = smp_processor_id();
	struct vmap_block_queue *vbq = &vmap_block_queue[vb->cpu];
	spin_lock_irqsave(&vbq->lock, flags);
	list_add_tail(&vb->free_list, &vbq->free);
	spin_unlock_irqrestore(&vbq->lock, flags);
	return (void *)va->va_start;
}

/* The block has no live slice and has left its queue: it goes. Its
 * entries are clear; its range is flushed by the lazy purge. */
static void free_vmap_block(struct vmap_block *vb)
{
	unsigned long flags;
	spin_lock_irqsave(&vmap_blocks_lock, flags);
	list_del(&vb->all);
	nr_vmap_blocks--;
	spin_unlock_irqrestore(&vmap_blocks_lock, flags);
	struct vmap_area *va = find_unlink_vmap_area((void *)vb->va->va_start, true, "vm_unmap_ram", NULL);
	if (va)
		free_vmap_area_noflush(va);
	kfree(vb);
}

/* Linux's vb_alloc: a slice of one of this CPU's blocks, or of a new one. */
static void *vb_alloc(unsigned int count, int node, gfp_t gfp)
{
	unsigned int order = order_base_2(count);
	unsigned long flags;
	void *addr = NULL;
	vmap_block_queues_init();
	struct vmap_block_queue *vbq = &vmap_block_queue[smp_processor_id()];
	spin_lock_irqsave(&vbq->lock, flags);
	struct vmap_block *vb;
	list_for_each_entry(vb, &vbq->free, free_list) {
		spin_lock(&vb->lock);
		if (vb->free >= (1ul << order)) {
			unsigned long off = VMAP_BBMAP_BITS - vb->free;
			vb->free -= 1ul << order;
			vb->order_at[off] = (u8)(order + 1);
			addr = (void *)(vb->va->va_start + (off << PAGE_SHIFT));
			if (!vb->free)
				list_del(&vb->free_list);
			spin_unlock(&vb->lock);
			break;
		}
		spin_unlock(&vb->lock);
	}
	spin_unlock_irqrestore(&vbq->lock, flags);
	if (!addr)
		addr = new_vmap_block(order, node == NUMA_NO_NODE ? numa_node_id() : node, gfp);
	return addr;
}

/* Linux's vb_free. False (and nothing done) when addr is not the start of
 * a live slice of count pages. */
static bool vb_free(const void *addr, unsigned int count)
{
	unsigned long a = (unsigned long)addr, flags;
	unsigned int order = order_base_2(count);
	spin_lock_irqsave(&vmap_area_lock, flags);
	struct vmap_area *va = vmap_ready ? busy_find_locked(a) : NULL;
	struct vmap_block *vb = va && (va->flags & VMAP_BLOCK) ? va->vb : NULL;
	spin_unlock_irqrestore(&vmap_area_lock, flags);
	/* A live slice keeps its block: it cannot go while we look. */
	if (!vb || (a & ~PAGE_MASK))
		return false;
	unsigned long off = (a - vb->va->va_start) >> PAGE_SHIFT;
	spin_lock_irqsave(&vb->lock, flags);
	if (vb->order_at[off] != order + 1) {
		spin_unlock_irqrestore(&vb->lock, flags);
		return false;
	}
	vb->order_at[off] = 0;
	spin_unlock_irqrestore(&vb->lock, flags);
	unmap_kernel_range_noflush(a, PAGE_SIZE << order, NULL);
	spin_lock_irqsave(&vb->lock, flags);
	vb->dirty_min = min(vb->dirty_min, off);
	vb->dirty_max = max(vb->dirty_max, off + (1ul << order));
	vb->dirty += 1ul << order;
	bool gone = vb->dirty == VMAP_BBMAP_BITS;
	spin_unlock_irqrestore(&vb->lock, flags);
	if (gone)
		free_vmap_block(vb); /* free was 0: it is on no queue */
	return true;
}

/* The vmap-block half of vm_unmap_aliases: every CPU's blocks with no live
 * slice are freed (to the lazy purge that follows), and the dirty slices
 * of the blocks still in use are flushed, all in one range. */
static void vmap_blocks_unmap_aliases(void)
{
	LIST_HEAD(dead);
	unsigned long flags, start = ~0ul, end = 0;
	vmap_block_queues_init();
	for (unsigned int c = 0; c < NR_CPUS; c++) {
		struct vmap_block_queue *vbq = &vmap_block_queue[c];
		struct vmap_block *vb, *n;
		spin_lock_irqsave(&vbq->lock, flags);
		list_for_each_entry_safe(vb, n, &vbq->free, free_list) {
			spin_lock(&vb->lock);
			if (vb->free + vb->dirty == VMAP_BBMAP_BITS && vb->dirty != VMAP_BBMAP_BITS) {
				/* Nothing can be taken from it any more. */
				vb->free = 0;
				vb->dirty = VMAP_BBMAP_BITS;
				list_move(&vb->free_list, &dead);
			}
			spin_unlock(&vb->lock);
		}
		spin_unlock_irqrestore(&vbq->lock, flags);
	}
	spin_lock_irqsave(&vmap_blocks_lock, flags);
	struct vmap_block *vb;
	list_for_each_entry(vb, &vmap_blocks, all) {
		spin_lock(&vb->lock);
		if (vb->dirty && vb->dirty != VMAP_BBMAP_BITS && vb->dirty_min < vb->dirty_max) {
			start = min(start, vb->va->va_start + (vb->dirty_min << PAGE_SHIFT));
			end = max(end, vb->va->va_start + (vb->dirty_max << PAGE_SHIFT));
			vb->dirty_min = VMAP_BBMAP_BITS;
			vb->dirty_max = 0;
		}
		spin_unlock(&vb->lock);
	}
	spin_unlock_irqrestore(&vmap_blocks_lock, flags);
	if (start < end) {
		flush_tlb_kernel_range(start, end);
		spin_lock_irqsave(&vmap_area_lock, flags);
		stat_flushes++;
		spin_unlock_irqrestore(&vmap_area_lock, flags);
	}
	while (!list_empty(&dead)) {
		struct vmap_block *d = list_first_entry(&dead, struct vmap_block, free_list);
		list_del(&d->free_list);
		free_vmap_block(d);
	}
}

void *vm_map_ram(struct page **pages, unsigned int count, int node)
{
	if (!count)
		return NULL;
	unsigned long size = (unsigned long)count << PAGE_SHIFT;
	if (count <= VMAP_MAX_ALLOC) {
		void *addr = vb_alloc(count, node, GFP_KERNEL);
		if (!addr)
			return NULL;
		if (map_kernel_range((unsigned long)addr, size, PAGE_KERNEL_VMALLOC, pages, GFP_KERNEL) < 0) {
			vm_unmap_ram(addr, count);
			return NULL;
		}
		return addr;
	}
	/* Larger: an area of its own, without a guard page, as Linux's. */
	int err;
	struct vmap_area *va = alloc_vmap_area(size, PAGE_SIZE, VMALLOC_START, VMALLOC_END, node, GFP_KERNEL,
					       VMAP_RAM, &err);
	if (!va)
		return NULL;
	if (map_kernel_range(va->va_start, size, PAGE_KERNEL_VMALLOC, pages, GFP_KERNEL) < 0) {
		vm_unmap_ram((void *)va->va_start, count);
		return NULL;
	}
	return (void *)va->va_start;
}

void vm_unmap_ram(const void *mem, unsigned int count)
{
	if (count && count <= VMAP_MAX_ALLOC) {
		if (!vb_free(mem, count)) {
			char buf[96];
			unsigned long flags;
			spin_lock_irqsave(&vmap_area_lock, flags);
			stat_bad_vfrees++;
			spin_unlock_irqrestore(&vmap_area_lock, flags);
			pr_err("vm_unmap_ram: %p is not the start of %u pages that vm_map_ram mapped; nothing "
			       "unmapped (caller %s)\n", mem, count,
			       caller_name(__builtin_return_address(0), buf, sizeof(buf)));
		}
		return;
	}
	struct vmap_area *va = find_unlink_vmap_area(mem, true, "vm_unmap_ram", __builtin_return_address(0));
	if (!va)
		return;
	if (va_size(va) != (unsigned long)count << PAGE_SHIFT)
		pr_err("vm_unmap_ram: %p was mapped with %lu pages, not %u; unmapping all of it\n", mem,
		       va_size(va) >> PAGE_SHIFT, count);
	unmap_kernel_range_noflush(va->va_start, va_size(va), NULL);
	free_vmap_area_noflush(va);
}

/* ---- lookups and reports ---------------------------------------------- */

struct page *vmalloc_to_page(const void *addr)
{
	if (!is_vmalloc_addr(addr))
		return NULL;
	int level;
	pte_t *pte = lookup_kernel_address((unsigned long)addr, &level);
	if (!pte)
		return NULL;
	unsigned long pfn = (unsigned long)((pte_val(*pte) & PTE_PFN_MASK) >> PAGE_SHIFT);
	if (level == 2)
		pfn += ((unsigned long)addr & (PMD_SIZE - 1)) >> PAGE_SHIFT;
	else if (level != 1)
		return NULL;
	return pfn_to_page(pfn);
}

unsigned long vmalloc_nr_pages(void)
{
	return __atomic_load_n(&nr_vmalloc_pages_total, __ATOMIC_RELAXED);
}

void vmalloc_for_each_page(void (*fn)(struct page *page, void *arg), void *arg)
{
	unsigned long flags;
	spin_lock_irqsave(&vmap_area_lock, flags);
	vmap_init_locked();
	struct vmap_area *va;
	list_for_each_entry(va, &busy_list, list) {
		struct vm_struct *v = va->vm;
		/* nr_pages is set once the pages are there (__vmalloc_area_node),
		 * which is when vmalloc_nr_pages() counts them. */
		if ((va->flags & VMAP_RAM) || !v || !(v->flags & VM_ALLOC) || !v->pages)
			continue;
		for (unsigned int i = 0; i < v->nr_pages; i++)
			if (v->pages[i])
				fn(v->pages[i], arg);
	}
	spin_unlock_irqrestore(&vmap_area_lock, flags);
}

void vmalloc_get_stats(struct vmalloc_stats *s)
{
	unsigned long flags;
	spin_lock_irqsave(&vmap_area_lock, flags);
	vmap_init_locked();
	s->busy_areas = nr_busy;
	s->lazy_areas = nr_lazy;
	s->lazy_pages = vmap_lazy_nr;
	s->purges = stat_purges;
	s->flushes = stat_flushes;
	s->bad_vfrees = stat_bad_vfrees;
	s->deferred_frees = stat_deferred;
	s->free_ranges = free_tree.nr_nodes;
	spin_unlock_irqrestore(&vmap_area_lock, flags);
}

/* Linux's s_show (mm/vmalloc.c): one line per area, in address order. */
void vmallocinfo_show_buf(struct seq_buf *m)
{
	unsigned long flags;
	char buf[96];
	spin_lock_irqsave(&vmap_area_lock, flags);
	vmap_init_locked();
	struct vmap_area *va;
	list_for_each_entry(va, &busy_list, list) {
		if (va->flags & VMAP_RAM) {
			seq_buf_printf(m, "%#lx-%#lx %7lu vm_map_ram\n", va->va_start, va->va_end, va_size(va));
			continue;
		}
		struct vm_struct *v = va->vm;
		if (!v || (v->flags & VM_UNINITIALIZED))
			continue;
		seq_buf_printf(m, "%#lx-%#lx %7lu", (unsigned long)v->addr, (unsigned long)v->addr + v->size,
			       v->size);
		if (v->caller)
			seq_buf_printf(m, " %s", caller_name(v->caller, buf, sizeof(buf)));
		if (v->nr_pages)
			seq_buf_printf(m, " pages=%u", v->nr_pages);
		if (v->flags & VM_IOREMAP)
			seq_buf_printf(m, " ioremap");
		if (v->flags & VM_ALLOC)
			seq_buf_printf(m, " vmalloc");
		if (v->flags & VM_MAP)
			seq_buf_printf(m, " vmap");
		if (v->flags & VM_USERMAP)
			seq_buf_printf(m, " user");
		if (is_vmalloc_addr(v->pages))
			seq_buf_printf(m, " vpages");
		/* show_numa_info: pages per node. */
		if (v->nr_pages && (v->flags & VM_ALLOC)) {
			unsigned int counts[MAX_NUMNODES] = { 0 };
			for (unsigned int i = 0; i < v->nr_pages; i++)
				counts[page_to_nid(v->pages[i])]++;
			for (int nid = 0; nid < MAX_NUMNODES; nid++)
				if (counts[nid])
					seq_buf_printf(m, " N%d=%u", nid, counts[nid]);
		}
		seq_buf_printf(m, "\n");
	}
	/* Linux's show_purge_info: freed, not yet flushed. */
	list_for_each_entry(va, &purge_list, purge_list)
		seq_buf_printf(m, "%#lx-%#lx %7lu unpurged vm_area\n", va->va_start, va->va_end, va_size(va));
	spin_unlock_irqrestore(&vmap_area_lock, flags);
}

static void vmallocinfo_show(struct seq_buf *m, const struct proc_node *node)
{
	(void)node;
	vmallocinfo_show_buf(m);
}

PROC_FILE(vmallocinfo_entry, proc_root_dir, "vmallocinfo", vmallocinfo_show);
