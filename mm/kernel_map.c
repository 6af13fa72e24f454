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

static DEFINE_SPINLOCK(kernel_map_lock);

/* What an upper-level entry pointing to a kernel table carries. */
#define KERNEL_TABLE_BITS (_PAGE_PRESENT | _PAGE_RW)
#define PGD_LEVEL 4

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

static unsigned level_shift(int level) { return PAGE_SHIFT + 9 * (unsigned)(level - 1); }
static unsigned level_index(int level, unsigned long addr) { return (addr >> level_shift(level)) & 511; }

/* The end of the entry that addr is in, or end if that comes first (Linux's
 * p?d_addr_end). */
static unsigned long entry_end(int level, unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + (1ul << level_shift(level))) & ~((1ul << level_shift(level)) - 1);
	return boundary - 1 < end - 1 ? boundary : end; /* boundary 0: the top */
}

static u64 entry_read(void *table, int level, unsigned i)
{
	switch (level) {
	case 4: return pgd_val(READ_ONCE(((pgd_t *)table)[i]));
	case 3: return pud_val(READ_ONCE(((pud_t *)table)[i]));
	case 2: return pmd_val(READ_ONCE(((pmd_t *)table)[i]));
	default: return pte_val(READ_ONCE(((pte_t *)table)[i]));
	}
}

/* One store, so that a CPU walking the tables sees the old or the new entry. */
static void entry_write(void *table, int level, unsigned i, u64 v)
{
	switch (level) {
	case 4: WRITE_ONCE(((pgd_t *)table)[i], __pgd(v)); break;
	case 3: WRITE_ONCE(((pud_t *)table)[i], __pud(v)); break;
	case 2: WRITE_ONCE(((pmd_t *)table)[i], __pmd(v)); break;
	default: WRITE_ONCE(((pte_t *)table)[i], __pte(v)); break;
	}
}

static bool entry_is_leaf(int level, u64 e) { return level == 1 || (e & _PAGE_PSE); }
static void *table_below(u64 e) { return __va(e & PTE_PFN_MASK); }

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
static bool table_freeable(void *table)
{
	return memblock.frozen && !PageReserved(virt_to_page(table));
}

/* Tables the range lacks, before the buddy allocator exists, come from
 * memblock (Linux's spp_getpage does the same before after_bootmem);
 * memblock.frozen says it has handed over. */
static void *kernel_table_alloc(gfp_t gfp)
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
static void kernel_table_free(void *table)
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

/* ---- the direct map, a page at a time (Linux's set_memory.c) ----
 *
 * The direct map is built of 1 GiB (or 2 MiB) leaves (boot_paging.c). To
 * take one 4 KiB page out of it, the leaf above the page is split into a
 * table of the next size down (Linux's split_large_page), then that table's
 * entry for the page split again, down to a PTE. While any page of a split
 * range is out of the direct map, every access to the range goes through
 * smaller TLB entries: that is the cost. When a page comes back and its
 * table maps the whole range again, contiguous with the same bits, the
 * table is folded back into one leaf and freed, after a flush (Linux 6.1
 * never merges; 6.14's "x86/mm/pat: restore large ROX pages after
 * fragmentation", Kirill A. Shutemov, collapses the same way), so that
 * the memory a split took comes back. Only tables a split made are folded
 * (buddy pages; the boot pool's are PG_reserved), never below the size
 * the direct map was built with. direct_map_splits counts the leaves split
 * now, per level, for /proc/meminfo's DirectMap lines. */
static unsigned long direct_map_splits[4]; /* [2]: 2 MiB leaves split, [3]: 1 GiB; kernel_map_lock */

void direct_map_split_counts(unsigned long *split_2m, unsigned long *split_1g)
{
	unsigned long flags;
	spin_lock_irqsave(&kernel_map_lock, flags);
	*split_2m = direct_map_splits[2];
	*split_1g = direct_map_splits[3];
	spin_unlock_irqrestore(&kernel_map_lock, flags);
}

/* The entry that maps addr at whatever level, present or not (a page
 * taken out of the direct map keeps its PTE, without _PAGE_PRESENT), and
 * the table it is in; NULL when a table on the way is missing. */
static void *direct_map_entry_locked(unsigned long addr, int *level, unsigned *index)
{
	void *table = swapper_pg_dir;
	for (int l = PGD_LEVEL;; l--) {
		unsigned i = level_index(l, addr);
		u64 e = entry_read(table, l, i);
		if (l == 1 || (l < PGD_LEVEL && (e & _PAGE_PSE))) {
			*level = l;
			*index = i;
			return table;
		}
		if (!(e & _PAGE_PRESENT))
			return NULL;
		table = table_below(e);
	}
}

/* Splits the leaf above addr into a table of 512 leaves of the next size
 * down, the same memory with the same bits, using the zeroed table new;
 * returns whether new was used (another CPU may have split it first). */
static bool split_leaf_locked(unsigned long addr, void *new)
{
	int level;
	unsigned i;
	void *table = direct_map_entry_locked(addr, &level, &i);
	if (!table || level == 1)
		return false;
	u64 e = entry_read(table, level, i);
	unsigned long size = 1ul << level_shift(level), step = size >> 9;
	phys_addr_t phys = e & PTE_PFN_MASK & ~(size - 1);
	/* The leaf's bits (no PAT in the direct map: bit 12 is free to drop),
	 * _PAGE_PSE kept only for the 2 MiB leaves of a split 1 GiB one. */
	u64 bits = (e & ~PTE_PFN_MASK) & ~(u64)_PAGE_PSE;
	if (level - 1 > 1)
		bits |= _PAGE_PSE;
	for (unsigned j = 0; j < PTRS_PER_TABLE; j++)
		entry_write(new, level - 1, j, (phys + j * step) | bits);
	barrier(); /* the table is whole before a CPU can walk it */
	entry_write(table, level, i, __pa(new) | KERNEL_TABLE_BITS);
	direct_map_splits[level]++;
	return true;
}

/* Sets or clears set_bits/clear_bits on the 4 KiB direct-map PTE of page,
 * splitting what maps it into PTEs first (tables from GFP_KERNEL: the
 * caller may sleep). 0, or -ENOMEM (nothing changed but splits made). */
static int change_direct_map(struct page *page, u64 set_bits, u64 clear_bits)
{
	unsigned long addr = (unsigned long)page_address(page);
	unsigned long flags;
	for (;;) {
		int level;
		unsigned i;
		spin_lock_irqsave(&kernel_map_lock, flags);
		void *table = direct_map_entry_locked(addr, &level, &i);
		if (table && level == 1) {
			u64 e = entry_read(table, 1, i);
			entry_write(table, 1, i, (e | set_bits) & ~clear_bits);
			spin_unlock_irqrestore(&kernel_map_lock, flags);
			return 0;
		}
		spin_unlock_irqrestore(&kernel_map_lock, flags);
		if (!table)
			return -EINVAL; /* not in the direct map */
		void *new = kernel_table_alloc(GFP_KERNEL);
		if (!new)
			return -ENOMEM;
		spin_lock_irqsave(&kernel_map_lock, flags);
		bool used = split_leaf_locked(addr, new);
		spin_unlock_irqrestore(&kernel_map_lock, flags);
		if (!used)
			kernel_table_free(new);
	}
}

/* Whether table (of level's entries) maps the one range a leaf of
 * level + 1 would, with the same bits everywhere: then it can be folded
 * into that leaf, whose entry value goes to *leaf. */
static bool table_foldable(void *table, int level, u64 *leaf)
{
	unsigned long step = 1ul << level_shift(level);
	u64 first = entry_read(table, level, 0);
	u64 pfn_mask = PTE_PFN_MASK & ~(step - 1);
	u64 bits = first & ~pfn_mask;
	phys_addr_t base = first & pfn_mask;
	if (!(first & _PAGE_PRESENT) || !table_freeable(table) || base & ((step << 9) - 1))
		return false;
	if (level > 1 && !(first & _PAGE_PSE))
		return false;
	for (unsigned j = 1; j < PTRS_PER_TABLE; j++)
		if (entry_read(table, level, j) != ((base + j * step) | bits))
			return false;
	*leaf = base | (bits | _PAGE_PSE);
	return true;
}

/* Folds the tables above addr that map their whole range again into
 * leaves, the PTE table first, then the PMD table above it; the tables
 * detached go on *freed, to be freed after the caller's flush of *flush_end
 * bytes from *flush_start. */
static void fold_tables_locked(unsigned long addr, struct list_head *freed, unsigned long *flush_start,
			       unsigned long *flush_end)
{
	for (int level = 1; level <= 2; level++) {
		int leaf_level;
		unsigned i;
		void *table = direct_map_entry_locked(addr, &leaf_level, &i);
		if (!table || leaf_level != level)
			return;
		/* The entry above table, one level up. */
		void *upper = swapper_pg_dir;
		for (int l = PGD_LEVEL; l > level + 1; l--)
			upper = table_below(entry_read(upper, l, level_index(l, addr)));
		unsigned ui = level_index(level + 1, addr);
		u64 leaf;
		if (!table_foldable(table, level, &leaf))
			return;
		entry_write(upper, level + 1, ui, leaf);
		list_add(&virt_to_page(table)->lru, freed);
		direct_map_splits[level + 1]--;
		unsigned long size = 1ul << level_shift(level + 1);
		*flush_start = addr & ~(size - 1);
		*flush_end = *flush_start + size;
	}
}

int set_direct_map_invalid_noflush(struct page *page)
{
	return change_direct_map(page, 0, _PAGE_PRESENT | _PAGE_RW);
}

int set_direct_map_default_noflush(struct page *page)
{
	int err = change_direct_map(page, _PAGE_PRESENT | _PAGE_RW, 0);
	if (err)
		return err;
	unsigned long addr = (unsigned long)page_address(page), flags, start = 0, end = 0;
	LIST_HEAD(freed);
	spin_lock_irqsave(&kernel_map_lock, flags);
	fold_tables_locked(addr, &freed, &start, &end);
	spin_unlock_irqrestore(&kernel_map_lock, flags);
	if (list_empty(&freed))
		return 0;
	/* No CPU may still walk a folded table when it is freed. */
	flush_tlb_kernel_range(start, end);
	struct page *p, *n;
	list_for_each_entry_safe(p, n, &freed, lru) {
		list_del(&p->lru);
		__free_page(p);
	}
	return 0;
}
