/* User page tables: allocation on demand, page faults, tearing down.
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
 *     (read-only, never counted, never freed);
 *   - a page-table page has PG_table set and is counted in the mm's
 *     pgtables_bytes (PUD/PMD/PTE levels) and nr_ptes (PTE level) from its
 *     installation until free_pgd_range() hands it to the mmu_gather;
 *   - nothing is freed before the TLB of every CPU in mm_cpumask() has been
 *     flushed of it (mm/mmu_gather.c). */
#ifndef MM_MEMORY_H
#define MM_MEMORY_H

#include "mm/mm_types.h"

struct mmu_gather;
struct page;

/* Fault flags, Linux's names. */
#define FAULT_FLAG_WRITE 0x01
#define FAULT_FLAG_USER 0x40
#define FAULT_FLAG_INSTRUCTION 0x100

/* What handle_mm_fault returns: 0 or a set of VM_FAULT_* bits. */
typedef unsigned int vm_fault_t;
#define VM_FAULT_OOM 0x000001
#define VM_FAULT_SIGBUS 0x000002
#define VM_FAULT_SIGSEGV 0x000040
#define VM_FAULT_ERROR (VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV)

/* What __pte_alloc()/pmd_install() did with the PMD (Qi Zheng's 2021
 * series): it now points to a PTE table (ours or one another walker
 * installed first), or it maps a huge page (so there is no PTE table to
 * walk). Negative errno on failure. */
enum pmd_installed_type {
	INSTALLED_PTE,
	INSTALLED_HUGE_PMD,
};

/* The page-protection bits for a VMA's flags (Linux's vm_get_page_prot:
 * a private writable mapping's PTEs are writable; no write without read on
 * x86; NX unless VM_EXEC). */
pgprot_t vm_get_page_prot(unsigned long vm_flags);

/* Allocates an mm with an empty user half (kernel half copied); NULL when
 * memory is short. mmput() drops a user: the last one unmaps everything,
 * frees the page tables and the PGD, and frees the mm. */
struct mm_struct *mm_alloc(void);
void mmput(struct mm_struct *mm);

/* Installs a new PTE table (from pte_alloc_one) in *pmd unless a walker got
 * there first, under mm->page_table_lock; returns which kind of entry the
 * PMD holds afterwards. The caller frees the table it passed if it was not
 * used (pmd_install sets *new to NULL when it was). */
enum pmd_installed_type pmd_install(struct mm_struct *mm, u64 *pmd, struct page **new);
/* Allocates a PTE table for *pmd if it has none; returns INSTALLED_PTE,
 * INSTALLED_HUGE_PMD or -ENOMEM. */
int __pte_alloc(struct mm_struct *mm, u64 *pmd);

/* Walks to the PMD entry for addr without allocating; NULL if the PUD or
 * PMD table is missing. */
u64 *walk_to_pmd(struct mm_struct *mm, unsigned long addr);
/* Walks to the PTE for addr without allocating; NULL if a level above is
 * missing (or the PMD maps a huge page). */
u64 *walk_to_pte(struct mm_struct *mm, unsigned long addr);
/* Walks to the PTE for addr, allocating PUD/PMD/PTE tables as needed; NULL
 * when memory is short or the PMD maps a huge page. */
u64 *pte_alloc_walk(struct mm_struct *mm, unsigned long addr);

/* Gives vma an anon_vma before its first anonymous page (Linux's
 * anon_vma_prepare): a touching neighbour's that could merge with it, or a
 * new one; 0, or -ENOMEM. In mm/vma.c, beside the merge rules it serves
 * (the host tests run it). */
int anon_vma_prepare(struct vm_area_struct *vma);

/* Resolves a fault at address inside vma (the caller found the VMA and
 * checked the access against vm_flags): anonymous demand paging, the zero
 * page for reads, a zeroed page for writes. */
vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags);

/* Faults in every page of [start, end) of vma, as writes (each page gets
 * a page of its own) or as reads (never-written pages get the zero page):
 * MAP_POPULATE writes a private writable mapping, MADV_POPULATE_READ
 * reads. Returns 0 or -ENOMEM. */
int populate_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end,
		       bool write);

/* Unmaps the pages of [addr, end) (inside vma), handing them to tlb. Page
 * tables stay (free_pgd_range frees them). */
void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma, unsigned long addr,
		      unsigned long end);
/* MADV_DONTNEED: unmaps [start, start + size) of vma with a gather of its
 * own (TLB flushed, pages freed before it returns). */
void zap_page_range(struct vm_area_struct *vma, unsigned long start, unsigned long size);
/* Frees the page tables that cover only addresses in [addr, end) or in
 * the free gaps around it, as Linux's free_pgd_range: floor is the end of
 * the previous VMA (0: none) and ceiling the start of the next (0: none,
 * the top of the user half), and a table is freed only when every address
 * it covers lies in [floor, ceiling), so no neighbouring VMA loses a table
 * it still uses. The tables go to tlb. */
void free_pgd_range(struct mmu_gather *tlb, unsigned long addr, unsigned long end,
		    unsigned long floor, unsigned long ceiling);
/* Linux's free_pgtables: frees the page tables under the VMAs from vma up
 * to (not including) end, a run being unmapped (in address order, linked
 * by vm_next, no other VMA between them), keeping what a VMA below floor
 * or from ceiling on still uses: free_pgd_range over the run. munmap
 * passes its neighbours' bounds, exit 0 and 0 (everything). */
static inline void free_pgtables(struct mmu_gather *tlb, struct vm_area_struct *vma,
				 struct vm_area_struct *end, unsigned long floor,
				 unsigned long ceiling)
{
	if (vma == end)
		return;
	unsigned long start = vma->vm_start, stop = vma->vm_end;
	for (; vma != end; vma = vma->vm_next)
		stop = vma->vm_end;
	free_pgd_range(tlb, start, stop, floor, ceiling);
}
/* Changes the protection of the present PTEs of [start, end) in vma to
 * newprot (mprotect), flushing the TLB; returns the PTEs changed. */
unsigned long change_protection(struct vm_area_struct *vma, unsigned long start, unsigned long end,
				pgprot_t newprot);

/* The shared zero page (read faults of never-written anonymous memory). */
extern struct page *zero_page;
/* Boot: the zero page; all of the kernel PGD's upper-half entries. */
void memory_init(void);

/* System-wide figures for /proc/meminfo: page-table pages of all user
 * mms (PageTables) and anonymous pages mapped (AnonPages). */
unsigned long nr_user_pagetable_pages(void);
unsigned long nr_anon_pages(void);

/* Activates mm on this CPU (CR3, mm_cpumask); NULL: the kernel's tables.
 * For the scheduler and for tests that build an mm themselves. */
void switch_mm(struct mm_struct *prev, struct mm_struct *next);
/* A kernel thread works on a user address space (Linux's kthread_use_mm):
 * its faults, user copies and system calls go to mm until
 * kthread_unuse_mm(). The thread must have no mm of its own, and the
 * caller keeps mm alive meanwhile. Tests use them on mms they built. */
void kthread_use_mm(struct mm_struct *mm);
void kthread_unuse_mm(struct mm_struct *mm);

#endif
