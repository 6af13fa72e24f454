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
/* A user PTE of a PROT_NONE mapping keeps its page but is not present:
 * the hardware ignores the other bits of a non-present entry, so the
 * global bit (never set in user entries) marks it, as in Linux. */
#define _PAGE_PROTNONE _PAGE_GLOBAL
/* What intermediate user tables (PGD/PUD/PMD entries) carry: the leaf PTE
 * decides the access. */
#define _PAGE_TABLE (_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED)

typedef u64 pte_t;
typedef u64 pmd_t;
typedef u64 pud_t;
typedef u64 pgd_t;

/* accessors (until the struct types land) */
#define pte_val(x) ((u64)(x))
#define __pte(x) ((pte_t)(x))
#define pmd_val(x) ((u64)(x))
#define __pmd(x) ((pmd_t)(x))
#define pud_val(x) ((u64)(x))
#define __pud(x) ((pud_t)(x))
#define pgd_val(x) ((u64)(x))
#define __pgd(x) ((pgd_t)(x))

static inline bool pte_none(pte_t pte) { return pte == 0; }
/* Present, or PROT_NONE (a page is behind it either way). */
static inline bool pte_present(pte_t pte) { return pte & (_PAGE_PRESENT | _PAGE_PROTNONE); }
static inline bool pte_write(pte_t pte) { return pte & _PAGE_RW; }
static inline unsigned long pte_pfn(pte_t pte) { return (pte & PTE_PFN_MASK) >> PAGE_SHIFT; }
static inline bool pmd_none(pmd_t pmd) { return pmd == 0; }
static inline bool pmd_trans_huge(pmd_t pmd) { return (pmd & (_PAGE_PRESENT | _PAGE_PSE)) == (_PAGE_PRESENT | _PAGE_PSE); }
static inline bool pud_none(pud_t pud) { return pud == 0; }
static inline bool pgd_none(pgd_t pgd) { return pgd == 0; }
/* The table an upper-level entry points to (direct-map address). */
static inline u64 *entry_table(u64 entry) { return (u64 *)__va(entry & PTE_PFN_MASK); }

#define PTRS_PER_TABLE 512
#define pgd_index(a) (((a) >> PGDIR_SHIFT) & 511)
#define pud_index(a) (((a) >> PUD_SHIFT) & 511)
#define pmd_index(a) (((a) >> PMD_SHIFT) & 511)
#define pte_index(a) (((a) >> PAGE_SHIFT) & 511)

#endif
