/* TLB flushing, local and across CPUs (shootdown). Kernel mappings are
 * global (CR4.PGE), so a full local flush toggles PGE; a range of up to
 * TLB_FLUSH_ALL_THRESHOLD pages is flushed page by page with INVLPG. */
#ifndef ARCH_X86_64_TLB_H
#define ARCH_X86_64_TLB_H

#include "kernel/types.h"

#define TLB_FLUSH_ALL_THRESHOLD 32

void __flush_tlb_one_kernel(unsigned long addr);
void __flush_tlb_all(void);
/* Every online CPU stops using translations of [start, end) before this
 * returns (the caller has already changed the page tables). INVLPG and the
 * full flush also drop the paging-structure caches, so page tables detached
 * from the range may be freed afterwards (mm/kernel_map.c does). Must be
 * called with interrupts on once other CPUs are online. */
void flush_tlb_kernel_range(unsigned long start, unsigned long end);
struct cpumask;
/* User page tables: every CPU of mask (this one included) that has pgd_pa
 * loaded in CR3 stops using translations of [start, end) before this
 * returns. A CPU that has another CR3 loaded holds no translations of it
 * (no PCIDs: a CR3 switch drops every non-global entry). Must be called
 * with interrupts on when another CPU may be in the mask. */
void flush_tlb_user_range(const struct cpumask *mask, phys_addr_t pgd_pa, unsigned long start,
			  unsigned long end);
/* User-range flushes this CPU did (its own and on request). */
unsigned long tlb_user_flushes(unsigned cpu);
/* switch_mm's note of the user PGD this CPU loads, before its CR3 write. */
void tlb_note_loaded_pgd(phys_addr_t pgd_pa);

/* Shootdowns this CPU has handled (tests, benchmarks). */
unsigned long tlb_shootdowns_handled(unsigned cpu);

#endif
