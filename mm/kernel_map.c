/* Kernel virtual ranges mapped and unmapped at run time in swapper_pg_dir
 * (the contract is mm/kernel_map.h). arch/x86_64/boot_paging.c builds the
 * first tables (kernel image, direct map) from its static pool; everything
 * after goes through here. One walker, walk_range(), serves every operation
 * at every level; it reads and writes entries only through the level's
 * accessors (pgd_val/__pgd ... pte_val/__pte).
 *
 * Invariants:
 *   - an entry is none (0) or present: a table, or a leaf (a PTE, or a
 *     _PAGE_PSE entry at the PMD or PUD level);
 *   - upper-half PGD entries are never cleared here, and once memblock has
 *     handed over none is made here (memory_init makes them all right
 *     after; a range that would need one is refused loudly), so the copies
 *     process PGDs hold stay right;
 *   - a PTE or PMD table that an unmap leaves empty is detached, and freed
 *     only after the TLB flush (no CPU can still walk it); so is a PUD
 *     table of the lower half (only kernel threads' CR3 sees those PGD
 *     entries). Upper-half PUD tables stay (those PGD entries are shared by
 *     copy), and so do the tables from the boot pool and from memblock
 *     (PG_reserved: they were never the buddy allocator's). Linux's vunmap
 *     keeps every table; mmlab frees the empty ones so that a map/unmap
 *     pair gives back all it took, which the test suites check.
 *
 * Locking: kernel_map_lock (irqsave) covers every walk of swapper_pg_dir
 * below the PGD and every change to it. Tables are allocated outside it, as
 * the caller's gfp may sleep: count what the range lacks under the lock,
 * allocate that many, and count again under the lock until enough are at
 * hand; the check for mapped pages and the installation then happen in one
 * hold, so a range is mapped entirely or not at all. Surplus tables (a
 * neighbour installed one meanwhile) are freed after the lock is dropped. */
#include "mm/kernel_map.h"
#include "mm/kernel_map_internal.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/cpufeature.h"
#include "arch/x86_64/tlb.h"
#include "lib/list.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "lib/string.h"
#include "mm/memblock.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

DEFINE_SPINLOCK(kernel_map_lock);


enum walk_op {
	WALK_COUNT,        /* -EBUSY if anything is mapped; count missing tables */
	WALK_MAP,          /* install tables from spare, write the leaves */
	WALK_UNMAP_CHECK,  /* -EINVAL if a huge leaf is only partly covered */
	WALK_UNMAP,        /* clear the leaves, detach emptied tables */
	WALK_LOOKUP,       /* find the leaf that maps the (one-page) range */
};

struct kernel_walk {
	enum walk_op op;
	unsigned long start;     /* of the whole range */
	struct page **pages;     /* map: one page per 4 KiB, or NULL and ... */
	phys_addr_t phys;        /* ... the range maps phys contiguously */
	u64 prot;
	int max_leaf_level;      /* the largest level that may hold a leaf */
	unsigned long tables;    /* WALK_COUNT: tables the range lacks */
	void *spare;             /* WALK_MAP: zeroed tables, linked through word 0 */
	struct list_head freed;  /* WALK_UNMAP: detached tables (their page's lru) */
	unsigned long cleared;   /* WALK_UNMAP: leaves cleared */
	bool keep_tables;        /* WALK_UNMAP: detach no table (a noflush unmap) */
	pte_t *found;            /* WALK_LOOKUP: the leaf entry, or NULL ... */
	int found_level;         /* ... and its level */
};


/* The end of the entry that addr is in, or end if that comes first (Linux's
 * p?d_addr_end). */
static unsigned long entry_end(int level, unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + (1ul << level_shift(level))) & ~((1ul << level_shift(level)) - 1);
	return boundary - 1 < end - 1 ? boundary : end; /* boundary 0: the top */
}



static bool entry_is_leaf(int level, u64 e) { return level == 1 || (e & _PAGE_PSE); }

static phys_addr_t phys_at(const struct kernel_walk *w, unsigned long addr)
{
	if (w->pages)
		return (phys_addr_t)page_to_pfn(w->pages[(addr - w->start) >> PAGE_SHIFT]) << PAGE_SHIFT;
	return w->phys + (addr - w->start);
}

/* Whether [addr, next) gets one leaf at this level instead of a table. */
static bool leaf_fits(const struct kernel_walk *w, int level, unsigned long addr, unsigned long next)
{
	if (level == 1)
		return true;
	unsigned long size = 1ul << level_shift(level);
	return level <= w->max_leaf_level && next - addr == size && !(addr & (size - 1)) &&
	       !(phys_at(w, addr) & (size - 1));
}

static bool table_empty(void *table, int level)
{
	for (unsigned i = 0; i < PTRS_PER_TABLE; i++)
		if (entry_read(table, level, i))
			return false;
	return true;
}

/* Only the buddy allocator's tables go back to it; the boot pool's and
 * memblock's are PG_reserved (and before the hand-over have no struct
 * page to look at). */
bool table_freeable(void *table)
{
	return memblock.frozen && !PageReserved(virt_to_page(table));
}

/* Tables the range lacks, before the buddy allocator exists, come from
 * memblock (Linux's spp_getpage does the same before after_bootmem);
 * memblock.frozen says it has handed over. */
void *kernel_table_alloc(gfp_t gfp)
{
	if (!memblock.frozen) {
		phys_addr_t pa = memblock_phys_alloc_node(PAGE_SIZE, PAGE_SIZE, NUMA_NO_NODE);
		if (!pa)
			return NULL;
		memset(__va(pa), 0, PAGE_SIZE);
		return __va(pa);
	}
	struct page *p = alloc_pages(gfp | __GFP_ZERO, 0);
	return p ? page_address(p) : NULL;
}

/* Memblock cannot take memory back: a boot-time table stays reserved
 * (boot panics when it cannot map anyway). */
void kernel_table_free(void *table)
{
	if (table_freeable(table))
		__free_page(virt_to_page(table));
}

/* Applies w->op to [addr, end) within table, whose entries are of the given
 * level; a NULL table (WALK_COUNT only) stands for one not allocated yet. */
static int walk_range(struct kernel_walk *w, void *table, int level, unsigned long addr,
		      unsigned long end)
{
	if (!table && level == 1)
		return 0; /* leaves need no table below them */
	do {
		unsigned long next = entry_end(level, addr, end);
		unsigned i = level_index(level, addr);
		u64 e = table ? entry_read(table, level, i) : 0;
		int err = 0;

		switch (w->op) {
		case WALK_COUNT:
			if (!e && level == PGD_LEVEL && (long)addr < 0 && memblock.frozen) {
				/* Process PGDs would never see the new entry. */
				pr_err("BUG: kernel_map: kernel PGD entry %u missing (memory_init makes them all)\n", i);
				return -EINVAL;
			}
			if (!e) {
				if (leaf_fits(w, level, addr, next))
					break;
				w->tables++;
				err = walk_range(w, NULL, level - 1, addr, next);
			} else if (entry_is_leaf(level, e)) {
				return -EBUSY;
			} else {
				err = walk_range(w, table_below(e), level - 1, addr, next);
			}
			break;
		case WALK_MAP:
			if (!e && leaf_fits(w, level, addr, next)) {
				entry_write(table, level, i,
					    phys_at(w, addr) | w->prot | (level > 1 ? _PAGE_PSE : 0));
				break;
			}
			if (!e) {
				void *t = w->spare; /* WALK_COUNT saw to it */
				w->spare = *(void **)t;
				*(void **)t = NULL;
				barrier(); /* the table is zero before a CPU can walk it */
				e = __pa(t) | KERNEL_TABLE_BITS;
				entry_write(table, level, i, e);
			} else if (entry_is_leaf(level, e)) {
				return -EBUSY; /* WALK_COUNT ruled it out */
			}
			err = walk_range(w, table_below(e), level - 1, addr, next);
			break;
		case WALK_UNMAP_CHECK:
			if (e && entry_is_leaf(level, e)) {
				if (level > 1 && (addr & ((1ul << level_shift(level)) - 1) ||
						  next - addr != 1ul << level_shift(level)))
					return -EINVAL;
			} else if (e) {
				err = walk_range(w, table_below(e), level - 1, addr, next);
			}
			break;
		case WALK_UNMAP:
			if (!e)
				break;
			if (entry_is_leaf(level, e)) {
				entry_write(table, level, i, 0);
				w->cleared++;
				break;
			}
			{
				void *child = table_below(e);
				err = walk_range(w, child, level - 1, addr, next);
				/* A PMD or PTE table left empty goes, and so
				 * does a PUD table of the lower half (the AP
				 * trampoline's identity map): no process PGD
				 * copies those entries. Upper-half PGD entries
				 * stay. */
				if (!w->keep_tables && (level < PGD_LEVEL || (long)addr >= 0) &&
				    table_empty(child, level - 1) && table_freeable(child)) {
					entry_write(table, level, i, 0);
					list_add(&virt_to_page(child)->lru, &w->freed);
				}
			}
			break;
		case WALK_LOOKUP:
			if (!(e & _PAGE_PRESENT))
				break;
			if (entry_is_leaf(level, e)) {
				/* Any level's entry is read as a pte_t, as
				 * Linux's lookup_address returns them. */
				w->found = (pte_t *)table + i;
				w->found_level = level;
				break;
			}
			err = walk_range(w, table_below(e), level - 1, addr, next);
			break;
		}
		if (err)
			return err;
		addr = next;
	} while (addr != end);
	return 0;
}

/* walk_range over [addr, end) of swapper_pg_dir; kernel_map_lock must be
 * held by this CPU (checked when spinlock_debug is on). */
static int walk_locked(struct kernel_walk *w, unsigned long addr, unsigned long end)
{
	if (spinlock_debug &&
	    __atomic_load_n(&kernel_map_lock.owner_cpu, __ATOMIC_RELAXED) != smp_processor_id() + 1)
		spin_bug(&kernel_map_lock, "kernel page tables walked without kernel_map_lock");
	return walk_range(w, swapper_pg_dir, PGD_LEVEL, addr, end);
}

static bool canonical(unsigned long addr) { return (unsigned long)((long)(addr << 16) >> 16) == addr; }

static int check_range(unsigned long addr, unsigned long size)
{
	if (!size || (addr | size) & ~PAGE_MASK)
		return -EINVAL;
	unsigned long last = addr + size - 1;
	if (addr + size <= addr || !canonical(addr) || !canonical(last) || (addr ^ last) >> 63)
		return -EINVAL;
	return 0;
}

static int map_range(struct kernel_walk *w, unsigned long addr, unsigned long size, gfp_t gfp)
{
	int err = check_range(addr, size);
	if (err)
		return err;
	if (!(w->prot & _PAGE_PRESENT) || w->prot & (_PAGE_USER | _PAGE_PSE | PTE_PFN_MASK))
		return -EINVAL;
	if (!boot_cpu_has(X86_FEATURE_NX))
		w->prot &= ~_PAGE_NX; /* a reserved bit there (Linux's __supported_pte_mask) */
	w->start = addr;

	unsigned long end = addr + size, have = 0, flags;
	void *spare = NULL;
	for (;;) {
		spin_lock_irqsave(&kernel_map_lock, flags);
		w->op = WALK_COUNT;
		w->tables = 0;
		err = walk_locked(w, addr, end);
		if (err || w->tables <= have)
			break;
		unsigned long want = w->tables;
		spin_unlock_irqrestore(&kernel_map_lock, flags);
		for (; have < want; have++) {
			void *t = kernel_table_alloc(gfp);
			if (!t) {
				err = -ENOMEM;
				goto out;
			}
			*(void **)t = spare;
			spare = t;
		}
	}
	if (!err) {
		w->op = WALK_MAP;
		w->spare = spare;
		err = walk_locked(w, addr, end);
		spare = w->spare;
	}
	spin_unlock_irqrestore(&kernel_map_lock, flags);
out:
	while (spare) {
		void *t = spare;
		spare = *(void **)t;
		*(void **)t = NULL;
		kernel_table_free(t);
	}
	return err;
}

int map_kernel_range(unsigned long addr, unsigned long size, u64 prot, struct page **pages,
		     gfp_t gfp)
{
	int err = check_range(addr, size);
	if (err)
		return err;
	if (!pages)
		return -EINVAL;
	for (unsigned long i = 0; i < size >> PAGE_SHIFT; i++)
		if (!pages[i])
			return -EINVAL;
	struct kernel_walk w = { .pages = pages, .prot = prot, .max_leaf_level = 1 };
	return map_range(&w, addr, size, gfp);
}

int map_kernel_range_phys(unsigned long addr, unsigned long size, phys_addr_t phys, u64 prot,
			  unsigned max_page_shift, gfp_t gfp)
{
	/* Page-aligned, and all of it within the 52 bits an entry can hold. */
	if (phys & ~PAGE_MASK || phys + size < phys || (phys + size - 1) >> 52)
		return -EINVAL;
	int level = 1;
	if (max_page_shift >= PMD_SHIFT)
		level = 2;
	if (max_page_shift >= PUD_SHIFT && boot_cpu_has(X86_FEATURE_PDPE1GB))
		level = 3;
	struct kernel_walk w = { .phys = phys, .prot = prot, .max_leaf_level = level };
	return map_range(&w, addr, size, gfp);
}

int unmap_kernel_range(unsigned long addr, unsigned long size)
{
	int err = check_range(addr, size);
	if (err)
		return err;
	struct kernel_walk w = { .op = WALK_UNMAP_CHECK };
	INIT_LIST_HEAD(&w.freed);
	unsigned long flags, end = addr + size;
	spin_lock_irqsave(&kernel_map_lock, flags);
	err = walk_locked(&w, addr, end);
	if (!err) {
		w.op = WALK_UNMAP;
		walk_locked(&w, addr, end);
	}
	spin_unlock_irqrestore(&kernel_map_lock, flags);
	if (err)
		return err;
	/* INVLPG (and the full flush) also drop the paging-structure caches,
	 * so the same flush covers the detached tables. */
	if (w.cleared || !list_empty(&w.freed))
		flush_tlb_kernel_range(addr, end);
	while (!list_empty(&w.freed)) {
		struct page *p = list_first_entry(&w.freed, struct page, lru);
		list_del(&p->lru);
		__free_page(p);
	}
	return 0;
}

/* Linux's vunmap_range_noflush, for vmalloc's lazy purge: see kernel_map.h. */
int unmap_kernel_range_noflush(unsigned long addr, unsigned long size, struct list_head *freed_tables)
{
	int err = check_range(addr, size);
	if (err)
		return err;
	struct kernel_walk w = { .op = WALK_UNMAP_CHECK, .keep_tables = !freed_tables };
	INIT_LIST_HEAD(&w.freed);
	unsigned long flags, end = addr + size;
	spin_lock_irqsave(&kernel_map_lock, flags);
	err = walk_locked(&w, addr, end);
	if (!err) {
		w.op = WALK_UNMAP;
		walk_locked(&w, addr, end);
	}
	spin_unlock_irqrestore(&kernel_map_lock, flags);
	while (!err && freed_tables && !list_empty(&w.freed)) {
		struct page *p = list_first_entry(&w.freed, struct page, lru);
		list_del(&p->lru);
		list_add(&p->lru, freed_tables);
	}
	return err;
}

pte_t *lookup_kernel_address(unsigned long addr, int *level)
{
	if (!canonical(addr))
		return NULL;
	struct kernel_walk w = { .op = WALK_LOOKUP };
	unsigned long flags;
	addr &= PAGE_MASK;
	spin_lock_irqsave(&kernel_map_lock, flags);
	walk_locked(&w, addr, addr + PAGE_SIZE); /* the top page: end 0 works */
	spin_unlock_irqrestore(&kernel_map_lock, flags);
	if (w.found)
		*level = w.found_level;
	return w.found;
}
