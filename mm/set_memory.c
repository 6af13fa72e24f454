/* The direct map a page at a time (Linux's arch/x86/mm/pat/set_memory.c):
 * set_direct_map_invalid_noflush and set_direct_map_default_noflush, the
 * splits of the direct map's large leaves they need, and the folding of
 * those splits back (the contract is mm/kernel_map.h).
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
 * (buddy pages; the boot pool's are PG_reserved), so no leaf grows past
 * the size the direct map was built with. direct_map_splits counts the
 * leaves split now, per level, for /proc/meminfo's DirectMap lines.
 *
 * Locking: kernel_map_lock (mm/kernel_map_internal.h) around every look
 * at and change to the tables; a table for a split is allocated outside
 * it (GFP_KERNEL may sleep), and a folded one freed outside it, after the
 * flush. */
#include "mm/kernel_map.h"
#include "mm/kernel_map_internal.h"
#include "arch/x86_64/boot_paging.h"
#include "arch/x86_64/tlb.h"
#include "lib/list.h"
#include "mm/page.h"
#include "mm/page_alloc.h"

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
