/* x86_64 page-table entry bits and index helpers (4-level paging). */
#ifndef ARCH_X86_64_PGTABLE_H
#define ARCH_X86_64_PGTABLE_H

#include "arch/x86_64/page.h"

#define _PAGE_PRESENT (1ull << 0)
#define _PAGE_RW (1ull << 1)
#define _PAGE_USER (1ull << 2)
#define _PAGE_PWT (1ull << 3)
#define _PAGE_PCD (1ull << 4)
#define _PAGE_ACCESSED (1ull << 5)
#define _PAGE_DIRTY (1ull << 6)
#define _PAGE_PSE (1ull << 7)
#define _PAGE_GLOBAL (1ull << 8)
#define _PAGE_NX (1ull << 63)
#define PTE_PFN_MASK 0x000ffffffffff000ull

#define PTRS_PER_TABLE 512
#define pgd_index(a) (((a) >> PGDIR_SHIFT) & 511)
#define pud_index(a) (((a) >> PUD_SHIFT) & 511)
#define pmd_index(a) (((a) >> PMD_SHIFT) & 511)
#define pte_index(a) (((a) >> PAGE_SHIFT) & 511)

/* Returns the kernel's page-table entry that maps addr (at whatever level
 * maps it) and its level (1 = 4 KiB PTE, 2 = 2 MiB, 3 = 1 GiB), or NULL when
 * addr is not mapped. */
u64 *lookup_kernel_address(unsigned long addr, int *level);

#endif
