/* User memory: faults, populating a range, the page protection of a VMA,
 * and what the rest of the kernel needs of user page tables, gathered for
 * its users (the pieces live beside it: mm/pgtable.h the walk and table
 * allocation, mm/teardown.h zap and free_pgtables, mm/mmu_context.h the
 * mm's life and switch_mm, mm/change_protection.c mprotect's page-table
 * half).
 *
 * Four levels (PGD -> PUD -> PMD -> PTE table -> page), each a 4 KiB page of
 * 512 entries. The kernel half of every PGD (entries 256..511) is a copy of
 * the kernel's own PGD, whose entries are all allocated at boot and never
 * change, so a copy never goes stale. The user half is built on demand by
 * faults and torn down by unmap_page_range() (the pages) and
 * free_pgd_range() (the tables).
 *
 * Invariants:
 *   - a present user PTE maps either an anonymous page (refcount 1,
 *     _mapcount 0, counted in MM_ANONPAGES) or the shared zero page
 *     (read-only, never counted, never freed); a huge PMD maps an order-9
 *     anonymous page counted as HPAGE_PMD_NR pages;
 *   - a page-table page has PG_table set and is counted in the mm's
 *     pgtables_bytes (PUD/PMD/PTE levels) and nr_ptes (PTE level) from its
 *     installation until free_pgd_range() hands it to the mmu_gather (or,
 *     in refcount mode, a PTE table's last put unhooks it: mm/pte_ref.h);
 *   - nothing is freed before the TLB of every CPU in mm_cpumask() has been
 *     flushed of it (mm/mmu_gather.c). */
#ifndef MM_MEMORY_H
#define MM_MEMORY_H

#include "mm/mm_types.h"
#include "mm/mmu_context.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"
#include "mm/teardown.h"

struct page;

/* Fault flags, Linux's names. */
#define FAULT_FLAG_WRITE 0x01
#define FAULT_FLAG_USER 0x40
#define FAULT_FLAG_INSTRUCTION 0x100

/* What handle_mm_fault returns: 0 or a set of VM_FAULT_* bits. */
typedef unsigned int vm_fault_t;
#define VM_FAULT_OOM 0x000001
#define VM_FAULT_SIGBUS 0x000002
#define VM_FAULT_MAJOR 0x000004 /* waited for I/O (a swap-in's read) */
#define VM_FAULT_SIGSEGV 0x000040
#define VM_FAULT_NOPAGE 0x000100 /* the fault-around mapped the page (mm/filemap_fault.c) */
#define VM_FAULT_ERROR (VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV)

/* The page-protection bits for a VMA's flags (Linux's vm_get_page_prot:
 * a private writable mapping's PTEs are writable; no write without read on
 * x86; NX unless VM_EXEC). */
pgprot_t vm_get_page_prot(unsigned long vm_flags);


/* Resolves a fault at address inside vma (the caller found the VMA and
 * checked the access against vm_flags): anonymous demand paging, the zero
 * page for reads, a zeroed page for writes. VM_FAULT_OOM only when memory
 * was short; a huge PMD gets mm/pgtable.h's rule. */
vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags);
/* swapoff's read fault at address of vma, whose mm's mmap_lock the
 * caller holds (mm/swap_unuse.c): not counted as the caller's fault
 * (Linux's unuse_pte counts none). */
vm_fault_t swapin_fault(struct vm_area_struct *vma, unsigned long address);

/* Faults in every page of [start, end) of vma, as writes (each page gets
 * a page of its own) or as reads (never-written pages get the zero page):
 * MAP_POPULATE writes a private writable mapping, MADV_POPULATE_READ
 * reads. Returns 0, -ENOMEM when memory was short, or -EFAULT when a
 * fault was refused (SIGBUS or SIGSEGV: a huge PMD it cannot write). */
int populate_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end,
		       bool write);

/* Changes the protection of the present PTEs of [start, end) in vma to
 * newprot (mprotect), flushing the TLB; returns the PTEs changed (a huge
 * PMD counts HPAGE_PMD_NR). In mm/change_protection.c. */
unsigned long change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				pgprot_t newprot);

/* Accounting of anonymous memory mapped into an mm: page (the head of nr
 * pages: 1, or HPAGE_PMD_NR for a huge PMD) counts in MM_ANONPAGES, in
 * mm's RSS high-water mark and in the map counts (mm/rmap.h) from the
 * moment a page table maps it until it is unmapped, and in
 * nr_anon_pages() while any page table maps it.
 *   anon_page_mapped: a new page's first mapping, by vma at address;
 *   anon_page_dup: fork's copy of a mapping into mm (a reference more);
 *   anon_page_unmapped: one mapping gone (the caller drops its
 *     reference with put_page, after the TLB flush). */
void anon_page_mapped(struct vm_area_struct *vma, struct page *page, unsigned long address, unsigned long nr);
void anon_page_dup(struct mm_struct *mm, struct page *page, unsigned long nr);
void anon_page_unmapped(struct mm_struct *mm, struct page *page, unsigned long nr);
/* A PTE's page of either kind, anonymous or a file's page-cache page (a
 * private file mapping maps both, mm/filemap_fault.c), by PageAnon:
 *   pte_page_unmapped: one PTE mapping page in mm went (anon_page_unmapped,
 *     or the file page's map count, Mapped and MM_SHMEMPAGES); the caller
 *     puts the reference after the TLB flush;
 *   pte_page_dup: fork's copy of a PTE mapping page into mm (a reference
 *     more). */
void pte_page_unmapped(struct mm_struct *mm, struct page *page);
void pte_page_dup(struct mm_struct *mm, struct page *page);
/* Migration's side (mm/migrate.c): a 4 KiB page's mapping goes to a
 * migration entry (add false: the map count, and AnonPages at the last;
 * the caller puts the mapping's reference) or comes back from one (add
 * true: the map count, AnonPages at the first, and a reference); RSS
 * stays, as a migration entry counts there. */
void anon_rmap_moved(struct page *page, bool add);

/* fork: copies the page-table entries of src_vma (the parent's) into
 * dst_vma (the child's copy of it), sharing private anonymous pages
 * copy-on-write (Linux's copy_page_range); the caller holds both mms'
 * mmap_locks for writing and flushes the parent's TLB afterwards. 0 or
 * -ENOMEM (what was copied stays, for the child's exit_mmap to undo). */
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);

/* Linux's fault_around_bytes (mm/filemap_fault.c): how much of the page
 * cache around a read fault of a file or shmem mapping, shared or
 * private, is mapped at once. */
extern unsigned long fault_around_bytes;

/* The shared zero page (read faults of never-written anonymous memory). */
extern struct page *zero_page;
bool is_zero_pfn(unsigned long pfn);
/* The page a present PTE maps, or NULL for the shared zero page (Linux's
 * vm_normal_page, the VMA aside: mmlab maps no special PFNs): not a
 * normal page, so not in Rss, nor exclusive (smaps, pagemap). */
static inline struct page *vm_normal_page(pte_t pte)
{
	return is_zero_pfn(pte_pfn(pte)) ? NULL : pfn_to_page(pte_pfn(pte));
}
/* Whether the anonymous page is this mapping's alone (one mapping, one
 * reference; a THP's 4 KiB page by its head's accounting, mm/rmap.h):
 * a write fault reuses it instead of copying (Linux 5.9's reuse rule,
 * which 6.1's PageAnonExclusive refines), and a FOLL_FORCE write may go
 * through its read-only PTE (mm/gup.c can_follow_write_pte). */
bool anon_page_exclusive(struct page *page);
/* Linux's is_cow_mapping: private and possibly writable. */
static inline bool is_cow_mapping(unsigned long flags)
{
	return (flags & (VM_SHARED | VM_MAYWRITE)) == VM_MAYWRITE;
}
/* Boot: the zero page; all of the kernel PGD's upper-half entries. */
void memory_init(void);

/* System-wide figure for /proc/meminfo: anonymous pages mapped
 * (AnonPages); PageTables is nr_user_pagetable_pages() (mm/pgtable.h). */
unsigned long nr_anon_pages(void);

#endif
