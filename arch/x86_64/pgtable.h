/* x86_64 page-table entries (4-level paging): the bits, the index helpers,
 * and one C type per level with Linux's accessors.
 *
 * Invariant: an entry of one level is never read or written as another's.
 * pte_t, pmd_t, pud_t and pgd_t are distinct one-member structs (as in
 * Linux), so passing a PMD where a PTE is expected is a compile error, and
 * the raw bits are reached only through pte_val()/__pte() and friends.
 * The P4D level is folded (4-level paging): a PGD entry points straight to
 * a PUD table.
 *
 * Locking: none here; a plain entry read is one 8-byte load (ptep_get,
 * pmdp_get), a write one 8-byte store (set_pte, set_pmd...), so a walker
 * on another CPU sees the old or the new entry, never a mix. Who may write
 * which entry is the caller's rule (mm/pgtable.h). */
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
/* A migration entry (mm/migrate.c): not present, not PROT_NONE, the page
 * it held being moved; it keeps the PFN and the entry's other bits, and
 * whether the entry was PROT_NONE. Bits the CPU ignores in an entry that
 * is not present (mmlab's encoding; Linux's is a swap entry of a special
 * type, offset the PFN). It cannot be taken for a swap entry (below):
 * its mark is bit 7, which Linux's x86_64 swap entries always leave 0
 * (pmd_present would take a swap PMD with it for a huge page), and a
 * swap entry is any other entry that is neither none nor present. */
#define _PAGE_SWP_MIGRATION (1ull << 7)
#define _PAGE_SWP_PROTNONE (1ull << 10)

/* A swap entry in a PTE, Linux's x86_64 encoding
 * (arch/x86/include/asm/pgtable_64.h):
 *
 *   | TYPE (59-63) | ~OFFSET (9-58) | 0 | 0 | X | X | X | X | F | SD | 0 |
 *                                     8   7   6   5   4   3   2   1    0
 *
 * present (0) and PROT_NONE (8) clear, bit 7 clear; the offset stored
 * inverted (an L1TF mitigation: a not-present entry's address bits then
 * point at no real memory); SD (soft dirty) and F (uffd-wp), which mmlab
 * does not track, 0. */

#define _PAGE_TABLE (_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED)
/* What pte_modify keeps of an entry when the protection changes: the page
 * and whether it was written (the new protection brings the rest). */
#define _PAGE_CHG_MASK (PTE_PFN_MASK | _PAGE_DIRTY)

struct mm_struct;

typedef struct { u64 pte; } pte_t;
typedef struct { u64 pmd; } pmd_t;
typedef struct { u64 pud; } pud_t;
typedef struct { u64 pgd; } pgd_t;

static inline u64 pte_val(pte_t pte) { return pte.pte; }
static inline u64 pmd_val(pmd_t pmd) { return pmd.pmd; }
static inline u64 pud_val(pud_t pud) { return pud.pud; }
static inline u64 pgd_val(pgd_t pgd) { return pgd.pgd; }
static inline pte_t __pte(u64 val) { return (pte_t){ val }; }
static inline pmd_t __pmd(u64 val) { return (pmd_t){ val }; }
static inline pud_t __pud(u64 val) { return (pud_t){ val }; }
static inline pgd_t __pgd(u64 val) { return (pgd_t){ val }; }

/* --- reading and writing entries ---------------------------------------- */

static inline pte_t ptep_get(pte_t *ptep) { return __pte(READ_ONCE(ptep->pte)); }
static inline pmd_t pmdp_get(pmd_t *pmdp) { return __pmd(READ_ONCE(pmdp->pmd)); }
static inline pud_t pudp_get(pud_t *pudp) { return __pud(READ_ONCE(pudp->pud)); }
static inline pgd_t pgdp_get(pgd_t *pgdp) { return __pgd(READ_ONCE(pgdp->pgd)); }
static inline void set_pte(pte_t *ptep, pte_t pte) { WRITE_ONCE(ptep->pte, pte_val(pte)); }
static inline void set_pmd(pmd_t *pmdp, pmd_t pmd) { WRITE_ONCE(pmdp->pmd, pmd_val(pmd)); }
static inline void set_pud(pud_t *pudp, pud_t pud) { WRITE_ONCE(pudp->pud, pud_val(pud)); }
static inline void set_pgd(pgd_t *pgdp, pgd_t pgd) { WRITE_ONCE(pgdp->pgd, pgd_val(pgd)); }
static inline void pmd_clear(pmd_t *pmdp) { set_pmd(pmdp, __pmd(0)); }
static inline void pud_clear(pud_t *pudp) { set_pud(pudp, __pud(0)); }
static inline void pgd_clear(pgd_t *pgdp) { set_pgd(pgdp, __pgd(0)); }
/* Linux's pte_clear/ptep_get_and_clear take the mm and address (for
 * architectures that track them); x86_64 needs neither. */
static inline void pte_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm;
	(void)addr;
	set_pte(ptep, __pte(0));
}
static inline pte_t ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm;
	(void)addr;
	return __pte(__atomic_exchange_n(&ptep->pte, 0, __ATOMIC_RELAXED));
}
/* The entry replaced by pte in one atomic step, never none in between
 * (reclaim's swap entry for a present one: a fault beside it sees the
 * page or the swap entry, and the table's count of non-none entries
 * stays); returns what it was, with the accessed and dirty bits the
 * hardware set up to then. */
static inline pte_t ptep_get_and_set(pte_t *ptep, pte_t pte)
{
	return __pte(__atomic_exchange_n(&ptep->pte, pte_val(pte), __ATOMIC_SEQ_CST));
}
static inline pmd_t pmdp_get_and_clear(struct mm_struct *mm, unsigned long addr, pmd_t *pmdp)
{
	(void)mm;
	(void)addr;
	return __pmd(__atomic_exchange_n(&pmdp->pmd, 0, __ATOMIC_RELAXED));
}

/* --- PTEs ---------------------------------------------------------------- */

static inline bool pte_none(pte_t pte) { return pte_val(pte) == 0; }
/* Present, or PROT_NONE (a page is behind it either way). */
static inline bool pte_present(pte_t pte) { return pte_val(pte) & (_PAGE_PRESENT | _PAGE_PROTNONE); }
/* Present to the hardware (PROT_NONE entries are not). */
static inline bool pte_accessible(pte_t pte) { return pte_val(pte) & _PAGE_PRESENT; }
static inline bool is_migration_entry(pte_t pte)
{
	return (pte_val(pte) & (_PAGE_PRESENT | _PAGE_PROTNONE | _PAGE_SWP_MIGRATION)) == _PAGE_SWP_MIGRATION;
}
/* Linux's is_swap_pte for mmlab's entries: neither none, nor present
 * (or PROT_NONE), nor a migration entry. */
static inline bool is_swap_pte(pte_t pte)
{
	return !pte_none(pte) && !pte_present(pte) && !is_migration_entry(pte);
}
static inline pte_t make_migration_entry(pte_t pte)
{
	u64 v = pte_val(pte);
	return __pte((v & ~(_PAGE_PRESENT | _PAGE_PROTNONE)) | _PAGE_SWP_MIGRATION |
		     (v & _PAGE_PROTNONE ? _PAGE_SWP_PROTNONE : 0));
}
/* The present (or PROT_NONE) entry at ptep becomes its migration entry
 * in one atomic step, never none in between; returns the entry it was
 * (with the accessed and dirty bits the hardware set up to then). Linux's
 * try_to_migrate_one clears the entry, flushes, then sets the migration
 * entry (ptep_clear_flush, set_pte_at), and a fault that finds it none
 * meanwhile waits on the folio lock the migration holds; mmlab has no
 * folio lock, so a fault finding it none would take a reference on the
 * page from the page cache and keep the move from seeing the count it
 * expects. The caller flushes the TLBs afterwards. */
static inline pte_t ptep_establish_migration_entry(pte_t *ptep)
{
	u64 old = __atomic_load_n(&ptep->pte, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&ptep->pte, &old, pte_val(make_migration_entry(__pte(old))), false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	return __pte(old);
}
/* The entry a migration entry stood for, mapping pfn. */
static inline pte_t migration_entry_to_pte(pte_t entry, unsigned long pfn)
{
	u64 v = pte_val(entry);
	u64 was = v & _PAGE_SWP_PROTNONE ? _PAGE_PROTNONE : _PAGE_PRESENT;
	return __pte((v & ~(PTE_PFN_MASK | _PAGE_SWP_MIGRATION | _PAGE_SWP_PROTNONE)) | was |
		     ((u64)pfn << 12));
}
#define SWP_TYPE_BITS 5
#define SWP_OFFSET_FIRST_BIT 9
#define SWP_OFFSET_SHIFT (SWP_OFFSET_FIRST_BIT + SWP_TYPE_BITS)
static inline unsigned long __swp_type(pte_t pte) { return pte.pte >> (64 - SWP_TYPE_BITS); }
static inline unsigned long __swp_offset(pte_t pte) { return ~pte.pte << SWP_TYPE_BITS >> SWP_OFFSET_SHIFT; }
static inline pte_t __swp_entry(unsigned long type, unsigned long offset)
{
	return (pte_t){ (~offset << SWP_OFFSET_SHIFT >> SWP_TYPE_BITS) | (type << (64 - SWP_TYPE_BITS)) };
}
static inline bool pte_write(pte_t pte) { return pte_val(pte) & _PAGE_RW; }
/* The accessed bit, which the CPU sets on any access through the entry
 * and reclaim's aging clears (Linux's pte_young, and x86's
 * ptep_test_and_clear_young: an atomic clear, since the CPU may set the
 * dirty bit of the same entry meanwhile). */
static inline bool pte_young(pte_t pte) { return pte_val(pte) & _PAGE_ACCESSED; }
static inline bool ptep_test_and_clear_young(pte_t *ptep)
{
	return __atomic_fetch_and(&ptep->pte, ~(u64)_PAGE_ACCESSED, __ATOMIC_RELAXED) & _PAGE_ACCESSED;
}
static inline bool pmdp_test_and_clear_young(pmd_t *pmdp)
{
	return __atomic_fetch_and(&pmdp->pmd, ~(u64)_PAGE_ACCESSED, __ATOMIC_RELAXED) & _PAGE_ACCESSED;
}
static inline unsigned long pte_pfn(pte_t pte) { return (pte_val(pte) & PTE_PFN_MASK) >> PAGE_SHIFT; }
static inline pte_t pfn_pte(unsigned long pfn, u64 prot) { return __pte(((u64)pfn << PAGE_SHIFT) | prot); }
static inline pte_t pte_mkwrite(pte_t pte) { return __pte(pte_val(pte) | _PAGE_RW); }
static inline pte_t pte_wrprotect(pte_t pte) { return __pte(pte_val(pte) & ~_PAGE_RW); }
/* Clears the write bit in place, atomically: the CPU may set the dirty
 * bit of the same entry meanwhile (Linux's ptep_set_wrprotect). */
static inline void ptep_set_wrprotect(pte_t *ptep) { __atomic_fetch_and(&ptep->pte, ~(u64)_PAGE_RW, __ATOMIC_RELAXED); }
static inline pte_t pte_mkdirty(pte_t pte) { return __pte(pte_val(pte) | _PAGE_DIRTY); }
static inline bool pte_dirty(pte_t pte) { return pte_val(pte) & _PAGE_DIRTY; }
/* The same page under a new protection (Linux's pte_modify). */
static inline pte_t pte_modify(pte_t pte, u64 newprot)
{
	return __pte((pte_val(pte) & _PAGE_CHG_MASK) | newprot);
}
static inline bool pte_same(pte_t a, pte_t b) { return pte_val(a) == pte_val(b); }

/* --- PMDs, PUDs, PGD entries -------------------------------------------- */

static inline bool pmd_none(pmd_t pmd) { return pmd_val(pmd) == 0; }
/* Something is behind the PMD: a PTE table, a huge page, or a PROT_NONE
 * huge page (Linux's x86 pmd_present, which counts _PAGE_PSE for the
 * last: pmd_modify keeps it when it takes _PAGE_PRESENT away). */
static inline bool pmd_present(pmd_t pmd)
{
	return pmd_val(pmd) & (_PAGE_PRESENT | _PAGE_PROTNONE | _PAGE_PSE);
}
/* The PMD maps a 2 MiB page itself: there is no PTE table below it. As
 * Linux's x86 pmd_trans_huge, _PAGE_PSE alone decides, present or not: a
 * huge PMD made PROT_NONE (not present to the hardware) still maps its
 * page, and read as a table pointer it would make the page's data PTEs. */
static inline bool pmd_trans_huge(pmd_t pmd) { return pmd_val(pmd) & _PAGE_PSE; }
/* Present to the hardware (a PROT_NONE huge PMD is not), as pte_accessible. */
static inline bool pmd_accessible(pmd_t pmd) { return pmd_val(pmd) & _PAGE_PRESENT; }
static inline bool pmd_write(pmd_t pmd) { return pmd_val(pmd) & _PAGE_RW; }
static inline unsigned long pmd_pfn(pmd_t pmd) { return (pmd_val(pmd) & PTE_PFN_MASK) >> PAGE_SHIFT; }
/* A huge PMD under a new protection (Linux's pmd_modify): the page, the
 * dirty bit and the huge bit stay. */
static inline pmd_t pmd_modify(pmd_t pmd, u64 newprot)
{
	return __pmd((pmd_val(pmd) & (_PAGE_CHG_MASK | _PAGE_PSE)) | newprot);
}
static inline bool pud_none(pud_t pud) { return pud_val(pud) == 0; }
static inline bool pgd_none(pgd_t pgd) { return pgd_val(pgd) == 0; }

/* The table an entry points to (direct-map addresses). Only a PMD that is
 * not none and not huge points to a PTE table: walkers reach it through
 * mm/pgtable.h's pte_offset_map, which checks that; the only other caller
 * of pmd_page_vaddr is free_pgtables, which frees the table itself. */
static inline pte_t *pmd_page_vaddr(pmd_t pmd) { return (pte_t *)__va(pmd_val(pmd) & PTE_PFN_MASK); }
static inline pmd_t *pud_pgtable(pud_t pud) { return (pmd_t *)__va(pud_val(pud) & PTE_PFN_MASK); }
/* Linux's p4d_pgtable, with the P4D level folded into the PGD. */
static inline pud_t *pgd_pgtable(pgd_t pgd) { return (pud_t *)__va(pgd_val(pgd) & PTE_PFN_MASK); }

#define PTRS_PER_TABLE 512
#define pgd_index(a) (((a) >> PGDIR_SHIFT) & 511)
#define pud_index(a) (((a) >> PUD_SHIFT) & 511)
#define pmd_index(a) (((a) >> PMD_SHIFT) & 511)
#define pte_index(a) (((a) >> PAGE_SHIFT) & 511)

#endif
