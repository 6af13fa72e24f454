/* What mm/kernel_map.c shares with mm/set_memory.c, the two files that
 * change swapper_pg_dir after boot: the lock, the entry accessors of every
 * level, and where the tables come from and go. Not for anyone else: the
 * contract is mm/kernel_map.h. */
#ifndef MM_KERNEL_MAP_INTERNAL_H
#define MM_KERNEL_MAP_INTERNAL_H

#include "arch/x86_64/page.h"
#include "arch/x86_64/pgtable.h"
#include "kernel/spinlock.h"
#include "mm/gfp.h"

/* Every walk of swapper_pg_dir below the PGD, and every change to it
 * (irqsave). */
extern spinlock_t kernel_map_lock;

/* What an upper-level entry pointing to a kernel table carries. */
#define KERNEL_TABLE_BITS (_PAGE_PRESENT | _PAGE_RW)
#define PGD_LEVEL 4

/* Level 1 is the PTE level (4 KiB), 2 the PMD (2 MiB), 3 the PUD (1 GiB),
 * 4 the PGD. */
static inline unsigned level_shift(int level) { return PAGE_SHIFT + 9 * (unsigned)(level - 1); }
static inline unsigned level_index(int level, unsigned long addr) { return (addr >> level_shift(level)) & 511; }

static inline u64 entry_read(void *table, int level, unsigned i)
{
	switch (level) {
	case 4: return pgd_val(READ_ONCE(((pgd_t *)table)[i]));
	case 3: return pud_val(READ_ONCE(((pud_t *)table)[i]));
	case 2: return pmd_val(READ_ONCE(((pmd_t *)table)[i]));
	default: return pte_val(READ_ONCE(((pte_t *)table)[i]));
	}
}

/* One store, so that a CPU walking the tables sees the old or the new entry. */
static inline void entry_write(void *table, int level, unsigned i, u64 v)
{
	switch (level) {
	case 4: WRITE_ONCE(((pgd_t *)table)[i], __pgd(v)); break;
	case 3: WRITE_ONCE(((pud_t *)table)[i], __pud(v)); break;
	case 2: WRITE_ONCE(((pmd_t *)table)[i], __pmd(v)); break;
	default: WRITE_ONCE(((pte_t *)table)[i], __pte(v)); break;
	}
}

static inline void *table_below(u64 e) { return __va(e & PTE_PFN_MASK); }

/* A zeroed table (from memblock before the buddy allocator exists), or
 * NULL; kernel_table_free gives back one the buddy allocator made
 * (table_freeable: the boot pool's and memblock's stay). */
void *kernel_table_alloc(gfp_t gfp);
void kernel_table_free(void *table);
bool table_freeable(void *table);

#endif
