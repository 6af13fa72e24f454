/* vmalloc: virtually contiguous kernel memory from pages that need not be
 * physically contiguous, in Linux's x86_64 vmalloc area (4-level paging:
 * VMALLOC_START 0xffffc90000000000, 32 TiB). Linux's include/linux/vmalloc.h
 * names, with the GFP semantics of Michal Hocko's 2021 series ("mm: allow
 * !GFP_KERNEL allocations for kvmalloc", a421ef303008, and its companions, Linux 5.17: "mm/vmalloc: alloc GFP_NO{FS,IO} for vmalloc",
 * "mm/vmalloc: add support for __GFP_NOFAIL"): every internal allocation
 * follows the caller's gfp, the page tables inside the matching scope.
 *
 * Every area is followed by an unmapped guard page (VM_NO_GUARD: none).
 * Freed areas are unmapped at once; their TLB flush is batched (lazy
 * purge, Linux's free_vmap_area_noflush / __purge_vmap_area_lazy).
 *
 * Context: vmalloc and vmap may sleep unless gfp is non-blocking
 * (GFP_NOWAIT/GFP_ATOMIC, which only need interrupts on: a non-blocking
 * vmalloc never sleeps, but the mapping lock is irqsave); vfree may be
 * called from any context (from an interrupt it is deferred, as Linux's).
 * The lock order is vmap_purge_lock (a mutex) -> vmap_area_lock ->
 * kernel_map_lock. */
#ifndef MM_VMALLOC_H
#define MM_VMALLOC_H

#include "arch/x86_64/pgtable.h"
#include "kernel/types.h"
#include "mm/gfp.h"

struct page;

#define VMALLOC_START 0xffffc90000000000ul
#define VMALLOC_SIZE_TB 32ul
#define VMALLOC_END (VMALLOC_START + (VMALLOC_SIZE_TB << 40) - 1)
/* mmlab maps the local APIC at 0xffffe80000000000 (arch/x86_64/apic.c
 * APIC_VIRT), inside Linux's vmalloc range: areas are handed out only
 * below it, so that no area can cover (and, failing to map, unmap) it. */
#define VMALLOC_ALLOC_END 0xffffe80000000000ul

/* vm_struct flags, Linux's values. */
#define VM_IOREMAP 0x00000001
#define VM_ALLOC 0x00000002
#define VM_MAP 0x00000004
#define VM_USERMAP 0x00000008
#define VM_UNINITIALIZED 0x00000020
#define VM_NO_GUARD 0x00000040
#define VM_MAP_PUT_PAGES 0x00000200
#define VM_ALLOW_HUGE_VMAP 0x00000400
/* mmlab's: a kernel stack (the guard is below it: see kernel stacks). */
#define VM_STACK 0x00010000

/* PAGE_KERNEL for vmalloc: present, writable, global, never executable. */
#define PAGE_KERNEL_VMALLOC (_PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED | _PAGE_DIRTY | _PAGE_GLOBAL | _PAGE_NX)

struct vm_struct {
	void *addr;
	unsigned long size;        /* with the guard page */
	unsigned long flags;       /* VM_* */
	struct page **pages;       /* every 4 KiB page, also of huge mappings */
	unsigned int page_order;   /* 9: mapped with 2 MiB PMDs */
	unsigned int nr_pages;     /* 4 KiB pages in pages[] */
	const void *caller;
};

void *vmalloc(unsigned long size);
void *vzalloc(unsigned long size);
void *vmalloc_node(unsigned long size, int node);
void *vzalloc_node(unsigned long size, int node);
void *vmalloc_huge(unsigned long size, gfp_t gfp);
void *__vmalloc(unsigned long size, gfp_t gfp);
void *__vmalloc_node(unsigned long size, unsigned long align, gfp_t gfp, int node, const void *caller);
void *__vmalloc_node_range(unsigned long size, unsigned long align, unsigned long start, unsigned long end,
			   gfp_t gfp, u64 prot, unsigned long vm_flags, int node, const void *caller);
/* NULL is fine; anything that is not the start of an area is reported
 * ("Trying to vfree() nonexistent vm area") and nothing is freed. */
void vfree(const void *addr);
void vfree_atomic(const void *addr);

void *vmap(struct page **pages, unsigned int count, unsigned long flags, u64 prot);
void vunmap(const void *addr);
/* vm_map_ram of up to VMAP_MAX_ALLOC pages takes a power-of-two slice of
 * a per-CPU block of VMAP_BBMAP_BITS pages (mm/vmalloc.c, "Per-CPU vmap
 * blocks"); larger counts get an area of their own. */
#define VMAP_MAX_ALLOC 64ul	/* BITS_PER_LONG pages, as Linux */
#define VMAP_BBMAP_BITS 1024ul	/* Linux's VMAP_BBMAP_BITS_MAX: what x86_64 gets */
#define VMAP_BLOCK_SIZE (VMAP_BBMAP_BITS * PAGE_SIZE)
void *vm_map_ram(struct page **pages, unsigned int count, int node);
void vm_unmap_ram(const void *mem, unsigned int count);
/* Purges every lazily freed area now (one TLB flush for all). */
void vm_unmap_aliases(void);

/* A range of the area without pages (get_vm_area), given back with
 * free_vm_area. */
struct vm_struct *get_vm_area(unsigned long size, unsigned long flags);
struct vm_struct *__get_vm_area_node(unsigned long size, unsigned long align, unsigned long flags,
				     unsigned long start, unsigned long end, int node, gfp_t gfp,
				     const void *caller);
void free_vm_area(struct vm_struct *area);

static inline bool is_vmalloc_addr(const void *x)
{
	unsigned long a = (unsigned long)x;
	return a >= VMALLOC_START && a < VMALLOC_END;
}
struct page *vmalloc_to_page(const void *addr);
/* The area that starts at addr (or contains it), or NULL. */
struct vm_struct *find_vm_area(const void *addr);

/* /proc/vmallocinfo and /proc/meminfo's VmallocUsed. */
struct seq_buf;
void vmallocinfo_show_buf(struct seq_buf *m);
unsigned long vmalloc_nr_pages(void);
/* Calls fn(page, arg) for every page of every vmalloc'd area (VM_ALLOC,
 * its pages allocated): the pages vmalloc_nr_pages() counts. Under
 * vmap_area_lock (irqsave): fn must not sleep, allocate or vmalloc. For
 * the page-owner map (mm/page_owner_map.c), which has no other way to
 * tell a vmalloc page from any other kernel page. */
void vmalloc_for_each_page(void (*fn)(struct page *page, void *arg), void *arg);

/* Figures for tests and benchmarks. */
struct vmalloc_stats {
	unsigned long busy_areas;      /* areas allocated (vmalloc, vmap, ...) */
	unsigned long lazy_areas;      /* freed, waiting for the purge */
	unsigned long lazy_pages;      /* their pages (vmap_lazy_nr) */
	unsigned long purges;          /* purges done */
	unsigned long flushes;         /* flush_tlb_kernel_range calls made by purges and vm_unmap_aliases */
	unsigned long bad_vfrees;      /* vfree of something that is no area */
	unsigned long deferred_frees;  /* vfrees deferred from atomic context */
	unsigned long free_ranges;     /* nodes in the free tree */
};
void vmalloc_get_stats(struct vmalloc_stats *s);
unsigned long lazy_max_pages(void);
/* Tests and benchmarks: purge at every free (eager) instead of lazily. */
extern bool vmap_lazy_disabled;

#endif
